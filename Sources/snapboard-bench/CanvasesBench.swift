import ArgumentParser
import Foundation
import Histogram
import SnapboardCore
import SnapboardRoom
import SnapboardStore

/// W7: many canvases loaded at once. What a loaded canvas costs in memory, what loading one from SQLite
/// costs, what the 16 ms tick costs when it walks them all, and what unloading them all costs.
struct CanvasesBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "canvases",
        abstract: "Loads many small canvases from SQLite into rooms: memory per canvas, load time, tick and unload cost.")

    @Option(help: "Canvases.")
    var count = 10_000

    @Option(help: "Shapes on each canvas.")
    var shapes = 20

    @OptionGroup var folder: ScratchFolder
    var scratch: String { folder.scratch }

    @Option(help: "Also write the figures to this JSON file.")
    var json: String?

    func run() throws {
        try folder.create()
        defer { folder.remove() }
        let path = scratch + "/canvases.sqlite"
        try? FileManager.default.removeItem(atPath: path)
        let store = try SQLiteCanvasStore(path: path, durability: .normal)
        let ids = (0..<count).map { "w7-\($0)" }
        var batch: [JournalEntry] = []
        for id in ids {
            var canvas = try Canvas(id: id)
            try seedShapes(shapes, on: &canvas) { i in Point(x: Double(40 + (i % 10) * 90), y: Double(60 + (i / 10) * 120)) }
            batch.append(.checkpoint(canvas.committedSnapshot, pruneBefore: canvas.seq + 1))
            if batch.count == 500 {
                try store.write(batch)
                batch.removeAll()
            }
        }
        try store.write(batch)

        let clock = ContinuousClock()
        var loads = Histogram<UInt64>(highestTrackableValue: 10_000_000_000, numberOfSignificantValueDigits: .three)
        let rssBefore = Self.rssMB()
        var rooms: [Room] = []
        rooms.reserveCapacity(count)
        var checkpoints: [JournalEntry] = []
        let started = clock.now
        for id in ids {
            let t0 = clock.now
            let stored = try store.load(id)
            let canvas = try stored.snapshot.map { try Canvas(snapshot: $0) } ?? Canvas(id: id)
            let room = Room(canvas: canvas, history: stored.log, epochs: stored.epochs, now: 0)
            room.journal = { checkpoints.append($0) }
            rooms.append(room)
            loads.record(Self.nanos(clock.now - t0))
        }
        let loadAll = seconds(clock.now - started)
        let rssLoaded = Self.rssMB()
        let perCanvasKB = (rssLoaded - rssBefore) * 1024 / Double(count)

        // The tick walks every loaded room every 16 ms, busy or not.
        var ticks = Histogram<UInt64>(highestTrackableValue: 10_000_000_000, numberOfSignificantValueDigits: .three)
        for t in 1...50 {
            let t0 = clock.now
            for room in rooms { room.tick(now: Double(t) * 0.016) }
            ticks.record(Self.nanos(clock.now - t0))
        }

        // Unloading: every room checkpoints (the journal's thread writes them) and is dropped.
        let u0 = clock.now
        for room in rooms { room.checkpoint() }
        rooms.removeAll()
        let unloadService = seconds(clock.now - u0)
        let w0 = clock.now
        try store.write(checkpoints)
        let unloadWrite = seconds(clock.now - w0)

        let figures: [String: Double] = [
            "canvases": Double(count), "shapesPerCanvas": Double(shapes),
            "rssPerCanvasKB": perCanvasKB, "rssLoadedMB": rssLoaded, "rssBeforeMB": rssBefore,
            "loadMeanMicros": loads.mean / 1000, "loadP50Micros": Double(loads.valueAtPercentile(50)) / 1000,
            "loadP99Micros": Double(loads.valueAtPercentile(99)) / 1000, "loadAllSeconds": loadAll,
            "tickAllRoomsP50Millis": Double(ticks.valueAtPercentile(50)) / 1e6, "tickAllRoomsMaxMillis": Double(ticks.max) / 1e6,
            "unloadServiceSeconds": unloadService, "unloadWriteSeconds": unloadWrite,
        ]
        print(String(format: "W7: %d canvases of %d shapes loaded from SQLite: %.1f KB of RSS each (%.1f → %.1f MB)",
                     count, shapes, perCanvasKB, rssBefore, rssLoaded))
        print(String(format: "    load one (read, decode, build the room): mean %.0f µs, p50 %.0f µs, p99 %.0f µs; all %.2f s",
                     figures["loadMeanMicros"]!, figures["loadP50Micros"]!, figures["loadP99Micros"]!, loadAll))
        print(String(format: "    one 16 ms tick over all %d idle rooms: p50 %.2f ms, max %.2f ms", count,
                     figures["tickAllRoomsP50Millis"]!, figures["tickAllRoomsMaxMillis"]!))
        print(String(format: "    unload all: %.3f s on the service thread (checkpoint snapshots), %.2f s of SQLite writes on the journal's",
                     unloadService, unloadWrite))
        try writeFigures(figures, as: "W7", to: json)
    }

    /// This process's resident memory, from /proc/self/statm.
    static func rssMB() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return 0 }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }

    static func nanos(_ d: Duration) -> UInt64 {
        UInt64(d.components.seconds) * 1_000_000_000 + UInt64(d.components.attoseconds / 1_000_000_000)
    }
}
