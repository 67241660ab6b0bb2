/// Where a server sits among the shards of one process.
struct ShardPlace: Sendable {
    let index: Int
    let count: Int

    func owns(_ canvas: String) -> Bool { Shards.owner(of: canvas, among: count) == index }
}
