import ArgumentParser
import Foundation
import SnapboardCore
import SnapboardPostgres
import SnapboardStore
import SnapboardTesting

/// The commit latency of one journal batch (`CanvasStore.write`: one transaction) on SQLite (durability
/// full) and on PostgreSQL (a local server with fsync on, or `--database-url`), for batches of 1 and of 50
/// commits, one after another on one thread as the journal writes them.
struct CommitLatencyBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "commit-latency",
        abstract: "Times one batch's commit on SQLite and on PostgreSQL, for batches of 1 and 50 ops.")

    @Option(help: "Batches timed per store and batch size (after 20 not timed).")
    var batches = 400

    @Option(help: "A PostgreSQL to measure (libpq URL); without it a local one is started with fsync on.")
    var databaseURL: String?

    @OptionGroup var folder: ScratchFolder

    @Option(help: "Also write the figures to this JSON file.")
    var json: String?

    func run() throws {
        try folder.create()
        defer { folder.remove() }
        var server: PostgresServer?
        defer { server?.stop() }
        let url: String
        if let databaseURL {
            url = databaseURL
        } else {
            server = try PostgresServer(fsync: true)
            url = server!.url
        }
        let postgres = try PostgresCanvasStore(url: url, node: NodeIdentity(id: "bench", address: "http://bench"))
        try postgres.startLease { _ in }
        defer { postgres.close() }
        let stores: [(String, CanvasStore)] = [
            ("sqlite", try SQLiteCanvasStore(path: "\(folder.scratch)/commit-latency.sqlite", durability: .full)),
            ("postgres", postgres),
        ]
        var figures: [String: Double] = [:]
        for (name, store) in stores {
            for size in [1, 50] {
                let (p50, p99) = try measure(store, size: size, canvas: "\(name)-\(size)")
                figures["\(name)_batch\(size)_p50_ms"] = p50
                figures["\(name)_batch\(size)_p99_ms"] = p99
                print(String(format: "%@, batches of %d: p50 %.2f ms, p99 %.2f ms (%d batches)", name, size, p50, p99, batches))
            }
        }
        try writeFigures(figures, as: "commit_latency", to: json)
    }

    /// p50 and p99, in milliseconds, of `batches` writes of `size` commits each to canvas `canvas`.
    private func measure(_ store: CanvasStore, size: Int, canvas id: String) throws -> (Double, Double) {
        var canvas = try Canvas(id: id)
        try seedShapes(10, on: &canvas) { Point(x: Double(60 + 80 * $0), y: 200) }
        _ = try store.load(id)
        try store.write([.checkpoint(canvas.committedSnapshot, pruneBefore: 1)])
        var seq = canvas.seq
        var times: [Double] = []
        for round in 0..<(batches + 20) {
            var entries: [JournalEntry] = []
            for i in 0..<size {
                let shape = canvas.shape("s\((round + i) % 10)")!
                var moved = Placement(of: shape)
                moved.center = Point(x: Double(100 + (round * 7 + i) % 800), y: Double(100 + (round * 11 + i) % 500))
                seq += 1
                entries.append(.commit(CommitRecord(canvas: id, seq: seq, op: .place(moved, before: Placement(of: shape)), client: "c:bench",
                                                    opID: "o\(seq)")))
            }
            let started = ContinuousClock.now
            try store.write(entries)
            if round >= 20 { times.append(seconds(ContinuousClock.now - started) * 1000) }
        }
        times.sort()
        return (times[times.count / 2], times[min(times.count - 1, Int((Double(times.count) * 0.99).rounded(.up)) - 1)])
    }
}
