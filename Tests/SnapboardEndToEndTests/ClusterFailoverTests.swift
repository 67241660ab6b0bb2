import Foundation
import SnapboardCore
import SnapboardLWSClient
import SnapboardProtocol
import Testing

#if canImport(Glibc)
import Glibc
import SnapboardTesting
#endif

/// What became of a WebSocket upgrade: open, or refused with a status and Location.
private enum Upgrade: Sendable, CustomStringConvertible {
    case open(WebSocketClient)
    /// `said`: how the WebSocket client's failure read; `status` and `location` from a raw upgrade just after.
    case refused(status: Int, location: String?, said: String)
    case failed(String)

    var description: String {
        switch self {
        case .open: "open"
        case .refused(let status, let location, let said): "refused \(status) \(location ?? "-") (\(said))"
        case .failed(let why): "failed: \(why)"
        }
    }
}

/// Connects to `url`; on a refusal, reads the refusal's status and Location on a raw socket.
private func upgrade(_ url: String) -> Upgrade {
    guard let client = try? WebSocketClient(url: url) else { return .failed("bad url \(url)") }
    do {
        try client.connect(timeout: 5)
        return .open(client)
    } catch {
        let text = "\(error)"
        guard let address = try? WebSocketAddress(url: url), text.contains("(HTTP "),
              let (status, headers) = try? upgradeHead(host: address.host, port: address.port, path: address.path) else { return .failed(text) }
        return .refused(status: status, location: headers["location"], said: text)
    }
}

/// A join of `url`: a session with its welcome; or how it ended without one (a refusal's status and Location,
/// or the close code of an upgrade the node accepted before it knew the canvas's owner).
private enum Join: Sendable, CustomStringConvertible {
    case welcomed(WebSocketClient)
    case refused(status: Int, location: String?)
    case closed(String)

    var description: String {
        switch self {
        case .welcomed: "welcomed"
        case .refused(let status, let location): "refused \(status) \(location ?? "-")"
        case .closed(let how): "no welcome: \(how)"
        }
    }
}

private func join(_ url: String) -> Join {
    switch upgrade(url) {
    case .refused(let status, let location, let said):
        // The WebSocket client names the refusal's status; the raw upgrade just after it, its Location.
        let first = said.range(of: #"HTTP (\d+)"#, options: .regularExpression).map { Int(said[$0].dropFirst(5)) ?? 0 } ?? 0
        return .refused(status: first == 0 ? status : first, location: status == first ? location : nil)
    case .failed(let why): return .closed(why)
    case .open(let client):
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            switch client.next(timeout: 0.1) {
            case .message(let bytes, _)?:
                if let value = try? JSONValue.parse(bytes) {
                    let items: [JSONValue] = if case .array(let list) = value { list } else { [value] }
                    if items.contains(where: { $0["type"] == .string("welcome") }) { return .welcomed(client) }
                }
            case .closed(let code, let reason)?: return .closed("closed \(code.map(String.init) ?? "-") \(reason)")
            case .failed(let why)?: return .closed("failed \(why)")
            default: continue
            }
        }
        client.abort()
        return .closed("nothing within 5 s")
    }
}

/// A join through `url` that follows 421s (up to three) and retries a close before the welcome, for up to 10 s.
private func joinFollowing(_ url: String) -> Join {
    var last = Join.closed("not tried")
    let deadline = Date().addingTimeInterval(10)
    var target = url
    while Date() < deadline {
        last = join(target)
        switch last {
        case .welcomed: return last
        case .refused(421, let location?): target = location.replacingOccurrences(of: "http://", with: "ws://")
        default:
            target = url
            usleep(100_000)
        }
    }
    return last
}

/// The seq op `id` was acked with on `client`, waiting up to 5 s; nil, and what came instead, otherwise.
private func ackSeq(_ client: WebSocketClient, _ id: String) -> (seq: Int?, instead: String) {
    let deadline = Date().addingTimeInterval(5)
    while Date() < deadline {
        switch client.next(timeout: 0.1) {
        case .message(let bytes, _)?:
            guard let value = try? JSONValue.parse(bytes) else { continue }
            let items: [JSONValue] = if case .array(let list) = value { list } else { [value] }
            for m in items where m["id"] == .string(id) {
                if m["type"] == .string("ack"), case .number(let n)? = m["seq"] { return (Int(n), "") }
                if m["type"] == .string("reject") { return (nil, "reject \(m)") }
            }
        case .closed(let code, let reason)?:
            return (nil, "closed \(code.map(String.init) ?? "-") \(reason)")
        case .failed(let why)?:
            return (nil, "failed \(why)")
        default:
            continue
        }
    }
    return (nil, "nothing within 5 s")
}

extension EndToEnd {
    @Suite("Cluster failures: races, pauses, partitions and chaos, each checked op by op", .serialized)
    struct ClusterFailoverTests {
        @Test("Two nodes asked for the same new canvas at the same moment, 100 times: never do both welcome a client, the canvas ends with one owner, and both clients' ops are in one history")
        func races() throws {
            let cluster = try Cluster(lease: 5)
            var clients: [AckChecker.Client] = []
            var single = 0, refusedAtOnce = 0, closedFirst = 0, neither = 0, wrote = 0
            for i in 0..<100 {
                let canvas = "race-\(i)"
                let pair = [i % 3 + 1, (i + 1) % 3 + 1]
                let start = DispatchSemaphore(value: 0)
                let results = Guard([Int: Join]())
                let group = DispatchGroup()
                for k in pair {
                    group.enter()
                    let port = cluster.ports[k - 1]
                    Thread.detachNewThread {
                        start.wait()
                        let outcome = join("ws://127.0.0.1:\(port)/v1/canvases/\(canvas)?client=\(canvas)-\(k)")
                        results.withLock { $0[k] = outcome }
                        group.leave()
                    }
                }
                start.signal()
                start.signal()
                group.wait()
                let outcomes = results.withLock { $0 }
                let said = outcomes.sorted { $0.key < $1.key }.map { "node\($0.key) \($0.value)" }
                let winners = pair.filter { if case .welcomed = outcomes[$0] { true } else { false } }
                #expect(winners.count <= 1, "\(canvas): two live copies: \(said)")
                if winners.count == 1 {
                    single += 1
                    let loser = pair.first { $0 != winners[0] }!
                    if case .refused(421, let location?) = outcomes[loser] {
                        refusedAtOnce += 1
                        #expect(location.contains("/n/node\(winners[0])/v1/canvases/\(canvas)"), "\(canvas): \(said)")
                    } else {
                        closedFirst += 1
                    }
                } else {
                    neither += 1
                    print("races: \(canvas): neither welcomed at first: \(said)")
                }
                // Each client writes once, in turn, on whichever node owns the canvas then: the first by the
                // session it has (or through the proxy), the second through the proxy, following the 421.
                var seqs: [Int?] = []
                for (n, k) in pair.sorted(by: { winners.contains($0) && !winners.contains($1) }).enumerated() {
                    let session: Join = if case .welcomed? = outcomes[k] { outcomes[k]! } else {
                        joinFollowing("ws://127.0.0.1:\(cluster.proxyPort)/v1/canvases/\(canvas)?client=\(canvas)-\(k)")
                    }
                    guard case .welcomed(let client) = session else {
                        Issue.record("\(canvas): node\(k)'s client was never welcomed: \(said), then \(session)")
                        seqs.append(nil)
                        continue
                    }
                    let op = "\(canvas)-\(n)"
                    client.send(#"{"type":"op","id":"\#(op)","op":"snap","x":\#(100 + 200 * n),"y":100,"shapeId":"\#(op)","shape":{"kind":"roundedRect"}}"#)
                    let (seq, instead) = ackSeq(client, op)
                    #expect(seq == n + 1, "\(canvas): \(op) acked \(String(describing: seq)) \(instead); \(said)")
                    clients.append(AckChecker.Client(id: "\(canvas)-\(k)", sent: [.init(canvas: canvas, opID: op, ackedSeq: seq)]))
                    seqs.append(seq)
                    client.close()
                }
                if seqs.allSatisfy({ $0 != nil }) { wrote += 1 }
            }
            print("races: \(single) of 100 welcomed by exactly one node (the other refused 421 at once \(refusedAtOnce) times, "
                  + "closed before a welcome \(closedFirst) times), by neither at first \(neither) times, never by both; "
                  + "both clients wrote in one history \(wrote) times")
            let owners = try cluster.owners()
            #expect((0..<100).allSatisfy { owners["race-\($0)"] != nil }, "\(owners)")
            let log = try cluster.oplog().filter { $0.canvas.hasPrefix("race-") }
            let report = AckChecker.check(clients: clients, log: log)
            print("races: \(report)")
            #expect(report.isClean && report.acked == 200 && log.count == 200, "\(report)")
        }

        @Test("An owner paused (SIGSTOP) for longer than its lease, then resumed: another node serves its canvases, what it had pending inserts nothing, and the checker counts nothing")
        func pause() throws {
            let cluster = try Cluster(lease: 4)
            let canvases = (0..<9).map { "pause-\($0)" }
            let load = ClusterLoad(port: cluster.proxyPort, canvases: canvases, clientsPerCanvas: 2, period: 0.03)
            load.start()
            try waitFor(15) { Set(load.acks.map(\.canvas)).count == canvases.count }
            Thread.sleep(forTimeInterval: 1)
            let owners = try cluster.owners()
            let counts = Dictionary(grouping: canvases, by: { owners[$0] ?? "none" }).mapValues(\.count)
            let victimID = try #require(counts.filter { $0.key != "none" }.max { $0.value < $1.value }?.key, "no canvas has an owner: \(owners)")
            let victim = try #require(Int(victimID.dropFirst(4)))
            let theirs = canvases.filter { owners[$0] == victimID }
            let paused = ContinuousClock.now
            cluster.pause(victim)
            // Longer than the lease: the others take its canvases once it has expired by the database's clock.
            Thread.sleep(forTimeInterval: Double(cluster.lease) + 3)
            let served = theirs.filter { load.firstAck(on: $0, after: paused + .seconds(cluster.lease)) != nil }
            cluster.resume(victim)
            Thread.sleep(forTimeInterval: 3)
            #expect(served.count == theirs.count, "served again while \(victimID) was paused: \(served) of \(theirs)")
            let after = try cluster.owners()
            #expect(theirs.allSatisfy { after[$0] != victimID }, "\(after)")
            print("pause: \(victimID) resumed; its cluster figures:\n\(cluster.clusterMetrics(victim))")
            // It knows it lost its lease, and what it had pending was refused by the fence (or never sent).
            let lapses = cluster.clusterFigure(victim, "snapboard_cluster_lease_lapses_total") ?? 0
            #expect(lapses >= 1, "\(cluster.clusterMetrics(victim))")
            load.stop()
            #expect(load.unanswered == 0, "\(load.summary)")
            let report = try cluster.check(load, "pause")
            #expect(report.isClean && report.acked > 100, "\(report)\n\(cluster.logTail())")
        }

        @Test("A node cut off from the database (its veth taken down) stops acking before its lease ends, another takes its canvases, and after healing it writes nothing stale; one cut off from the proxy gives its canvases up")
        func partitions() throws {
            let cluster = try Cluster(lease: 5, isolated: true, extraArguments: ["--ping-seconds", "1", "--idle-timeout", "3", "--idle-unload", "1"])
            let networks = try #require(cluster.networks)
            let canvases = (0..<9).map { "cut-\($0)" }
            let load = ClusterLoad(port: cluster.proxyPort, canvases: canvases, clientsPerCanvas: 2, period: 0.03)
            load.start()
            try waitFor(15) { Set(load.acks.map(\.canvas)).count == canvases.count }
            Thread.sleep(forTimeInterval: 1)
            // From the database.
            var owners = try cluster.owners()
            var victimID = try #require(Dictionary(grouping: canvases, by: { owners[$0] ?? "none" }).filter { $0.key != "none" }.max { $0.value.count < $1.value.count }?.key)
            var victim = try #require(Int(victimID.dropFirst(4)))
            var theirs = canvases.filter { owners[$0] == victimID }
            let before = load.connections
            let cut = ContinuousClock.now
            try networks.database(victim, up: false)
            try waitFor(Double(cluster.lease) + 10) { theirs.allSatisfy { load.firstAck(on: $0, after: cut + .seconds(cluster.lease)) != nil } }
            let takeover = theirs.map { (load.firstAck(on: $0, after: cut + .seconds(cluster.lease))! - cut).asSeconds }
            // Acks on the sessions that were open at the cut, for its canvases: the victim's last ones.
            let clientsOfTheirs = Set(load.canvasOfClient.filter { theirs.contains($0.value) }.keys)
            let lastOld = load.acks.filter { clientsOfTheirs.contains($0.client) && $0.connection == before[$0.client] && $0.at > cut }.map(\.at).max()
            let lastOldAfter = lastOld.map { ($0 - cut).asSeconds } ?? 0
            print("partition from the database: \(victimID)'s last ack \(lastOldAfter) s after the cut (lease \(cluster.lease) s); its canvases acked again on another node after \(takeover.max()!) s at most")
            #expect(lastOldAfter < Double(cluster.lease) - 1, "acked \(lastOldAfter) s after the cut")
            try networks.database(victim, up: true)
            try waitFor(15) { cluster.proxy.nodeStates()["node\(victim)"] == "UP" }
            Thread.sleep(forTimeInterval: 2)
            print("partition from the database: \(victimID) healed; its cluster figures:\n\(cluster.clusterMetrics(victim))")
            let lapses = cluster.clusterFigure(victim, "snapboard_cluster_lease_lapses_total") ?? 0
            #expect(lapses >= 1, "\(victimID) reports no lease lapse:\n\(cluster.clusterMetrics(victim))")
            // The batch it was committing when cut off: after healing, the fence refused it.
            let fenced = cluster.clusterFigure(victim, "snapboard_cluster_fenced_batches_total") ?? 0
            #expect(fenced >= 1, "\(victimID) reports no fenced batch after healing:\n\(cluster.clusterMetrics(victim))")
            let healed = ContinuousClock.now

            // From the proxy only: its sessions end, its rooms go idle and are released, another node serves.
            owners = try cluster.owners()
            victimID = try #require(Dictionary(grouping: canvases, by: { owners[$0] ?? "none" }).filter { $0.key != "none" }.max { $0.value.count < $1.value.count }?.key)
            victim = try #require(Int(victimID.dropFirst(4)))
            theirs = canvases.filter { owners[$0] == victimID }
            let split = ContinuousClock.now
            try networks.proxy(victim, up: false)
            try waitFor(25) { theirs.allSatisfy { load.firstAck(on: $0, after: split + .seconds(1)) != nil } }
            let moved = theirs.map { (load.firstAck(on: $0, after: split + .seconds(1))! - split).asSeconds }
            print("partition from the proxy: \(victimID)'s \(theirs.count) canvases served elsewhere after \(moved.max() ?? 0) s at most")
            #expect(try cluster.owners().filter { theirs.contains($0.key) }.allSatisfy { $0.value != victimID })
            try networks.proxy(victim, up: true)
            _ = healed
            load.stop()
            #expect(load.unanswered == 0, "\(load.summary)")
            let report = try cluster.check(load, "partitions")
            #expect(report.isClean && report.acked > 100, "\(report)\n\(cluster.logTail())")
        }

        @Test("Chaos: random node kills, pauses and partitions for SNAPBOARD_CHAOS_SECONDS (20 by default; make chaos runs 600), then nothing acked is lost, duplicated, misplaced or reordered")
        func chaos() throws {
            let environment = ProcessInfo.processInfo.environment
            let seconds = try #require(Double(environment["SNAPBOARD_CHAOS_SECONDS"] ?? "20"), "SNAPBOARD_CHAOS_SECONDS is not a number")
            try #require((5...86_400).contains(seconds), "SNAPBOARD_CHAOS_SECONDS must be 5…86400")
            let seed = environment["SNAPBOARD_CHAOS_SEED"].flatMap { UInt64($0) } ?? UInt64(Date().timeIntervalSince1970 * 1000) & 0xFFFF_FFFF
            print("chaos: seed \(seed) (SNAPBOARD_CHAOS_SEED replays it), \(seconds) s")
            var rng = SeededGenerator(state: seed)
            let cluster = try Cluster(lease: 4, isolated: true, extraArguments: ["--ping-seconds", "1", "--idle-timeout", "3", "--idle-unload", "1"])
            let networks = try #require(cluster.networks)
            let canvases = (0..<12).map { "chaos-\($0)" }
            let load = ClusterLoad(port: cluster.proxyPort, canvases: canvases, clientsPerCanvas: 2, period: 0.05, seed: seed)
            load.start()
            try waitFor(15) { Set(load.acks.map(\.canvas)).count == canvases.count }
            let end = ContinuousClock.now + .seconds(seconds)
            var faults: [String: Int] = [:]
            func pause(_ low: Double, _ high: Double) { Thread.sleep(forTimeInterval: low + rng.nextUnit() * (high - low)) }
            while ContinuousClock.now < end {
                let k = Int(rng.next() % 3) + 1
                switch rng.next() % 4 {
                case 0:
                    faults["kill", default: 0] += 1
                    cluster.kill(k)
                    pause(1, 5)
                    try cluster.start(k)
                case 1:
                    faults["pause", default: 0] += 1
                    cluster.pause(k)
                    pause(1, Double(cluster.lease) + 3)
                    cluster.resume(k)
                case 2:
                    faults["cut from the database", default: 0] += 1
                    try networks.database(k, up: false)
                    pause(1, Double(cluster.lease) + 4)
                    try networks.database(k, up: true)
                default:
                    faults["cut from the proxy", default: 0] += 1
                    try networks.proxy(k, up: false)
                    pause(1, 6)
                    try networks.proxy(k, up: true)
                }
                pause(1, 4)
            }
            // Everything healed: every canvas acks again, then the load drains and the log is checked.
            let healed = ContinuousClock.now
            try waitFor(30) { canvases.allSatisfy { load.firstAck(on: $0, after: healed + .seconds(1)) != nil } }
            load.stop(drain: 20)
            print("chaos: faults \(faults.sorted { $0.key < $1.key })")
            #expect(load.unanswered == 0, "\(load.summary)")
            let report = try cluster.check(load, "chaos")
            print("chaos counts: lost \(report.lost) duplicated \(report.duplicated) misplaced \(report.misplaced) gaps \(report.gaps) fence-drops \(report.fenceDrops) reordered \(report.reordered) (acked \(report.acked), seed \(seed))")
            #expect(report.isClean && report.acked > 100, "\(report)\n\(cluster.logTail())")
        }
    }
}

/// A value behind a lock, for the race test's threads.
private final class Guard<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
