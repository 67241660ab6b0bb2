/// Open WebSockets of the whole process, by address: the connection limits count across shards.
struct Admissions {
    var connections = 0
    var byPeer: [String: Int] = [:]
}
