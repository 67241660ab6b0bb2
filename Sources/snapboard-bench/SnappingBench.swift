import ArgumentParser
import Foundation
import Histogram
import SnapboardCore

/// W5: the cost of one move update with edge and grid snapping, as the number of shapes grows.
struct SnappingBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapping",
        abstract: "Times move updates with snapping on canvases of 1k, 10k and 100k shapes, with and without gap snapping.")

    @Option(help: "Comma-separated shape counts.")
    var shapes = "1000,10000,100000"

    @Option(help: "Move updates timed per shape count.")
    var moves = 200_000

    @Option(help: "Seed for shape placement.")
    var seed: UInt64 = 1

    @Option(help: "Gap (equal-spacing) snapping: on, off, or both (each count is measured twice).")
    var gaps = "both"

    @Option(help: "Other shapes under someone else's gesture while the moves are timed (not snap candidates).")
    var busy = 0

    @Option(help: "Also write the figures to this JSON file.")
    var json: String?

    struct Row: Codable {
        var shapes: Int
        var gaps: Bool
        var busy: Int
        var moves: Int
        var meanNanos: Double
        var p50Nanos: UInt64
        var p99Nanos: UInt64
        var maxNanos: UInt64
        var snappedPercent: Double
    }

    func run() throws {
        let counts = shapes.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let modes: [Bool] = switch gaps {
        case "on": [true]
        case "off": [false]
        default: [false, true]
        }
        print("W5 engine: move updates with edge + grid (+ gap) snapping on a 20000 × 20000 canvas (pitch-32 grid)"
              + (busy > 0 ? ", \(busy) other shapes under gestures" : ""))
        print("shapes  gaps      moves    mean ns   p50 ns   p99 ns   max ns   snapped")
        var rows: [Row] = []
        for count in counts {
            for mode in modes {
                let row = try measure(count, gaps: mode)
                rows.append(row)
                print(String(format: "%7d  %-4@  %9d  %9.1f  %7d  %7d  %7d  %7.1f%%", row.shapes, mode ? "on" : "off", row.moves,
                             row.meanNanos, row.p50Nanos, row.p99Nanos, row.maxNanos, row.snappedPercent))
            }
        }
        for mode in modes {
            let measured = rows.filter { $0.gaps == mode }
            if measured.count >= 2, let first = measured.first, let last = measured.last {
                print(String(format: "growth (gaps %@): %.2fx time for %.0fx shapes (log2 ratio %.2f)", mode ? "on" : "off",
                             last.meanNanos / first.meanNanos, Double(last.shapes) / Double(first.shapes),
                             log2(Double(last.shapes)) / log2(Double(first.shapes))))
            }
        }
        try writeFigures(rows, as: "W5", to: json)
    }

    private func measure(_ count: Int, gaps: Bool) throws -> Row {
        var config = CanvasConfig()
        config.snapping.gaps = gaps
        config.width = 20_000
        config.height = 20_000
        config.maxShapes = max(count + 1, config.maxShapes)
        var canvas = try Canvas(id: "bench", config: config)
        var rng = SeededGenerator(state: seed)
        let setup = Participant(id: "setup")
        let kinds = ShapeKind.names
        for _ in 0..<count {
            var spec = ShapeSpec(kind: kinds[Int(rng.next() % UInt64(kinds.count))])
            spec.width = 20 + rng.nextUnit() * 100
            spec.height = 20 + rng.nextUnit() * 100
            let tap = Point(x: rng.nextUnit() * 20_000, y: rng.nextUnit() * 20_000)
            _ = try canvas.apply(.snap(at: tap, shapeID: nil, spec: spec), by: setup)
        }
        // Scatter the shapes off the grid too, so the edge index holds many distinct values.
        for shape in canvas.shapes where rng.next() % 2 == 0 {
            let t = Point(x: rng.nextUnit() * 31, y: rng.nextUnit() * 31)
            _ = try canvas.apply(.move(shape.id, phase: nil, translation: t), by: Participant(id: "setup", zoom: 100))
        }
        _ = try canvas.apply(.snap(at: Point(x: 100, y: 100), shapeID: "dragged", spec: ShapeSpec(kind: "roundedRect")), by: setup)

        let dragger = Participant(id: "dragger")
        _ = try canvas.apply(.move("dragged", phase: .begin, translation: .zero), by: dragger)
        // Other people dragging elsewhere: their shapes are excluded from every snap.
        for (k, shape) in canvas.shapes.filter({ $0.id != "dragged" }).prefix(busy).enumerated() {
            _ = try canvas.apply(.move(shape.id, phase: .begin, translation: .zero), by: Participant(id: "busy\(k)"))
        }
        var histogram = Histogram<UInt64>(highestTrackableValue: 1_000_000_000, numberOfSignificantValueDigits: .three)
        var snapped = 0
        let clock = ContinuousClock()
        var total = Duration.zero
        for i in 0..<moves {
            // A slow diagonal sweep across the whole canvas, wobbling so both axes cross many edges.
            let f = Double(i) / Double(moves)
            let t = Point(x: f * 19_000 + 7 * sin(Double(i) / 5), y: f * 19_000 + 7 * cos(Double(i) / 7))
            let start = clock.now
            let outcome = try canvas.apply(.move("dragged", phase: .update, translation: t), by: dragger)
            let elapsed = clock.now - start
            total += elapsed
            let ns = UInt64(elapsed.components.attoseconds / 1_000_000_000) + UInt64(elapsed.components.seconds) * 1_000_000_000
            histogram.record(ns)
            if !outcome.events.isEmpty { snapped += 1 }
        }
        let totalNanos = Double(total.components.seconds) * 1e9 + Double(total.components.attoseconds) / 1e9
        return Row(shapes: count, gaps: gaps, busy: busy, moves: moves, meanNanos: totalNanos / Double(moves),
                   p50Nanos: histogram.valueAtPercentile(50), p99Nanos: histogram.valueAtPercentile(99),
                   maxNanos: histogram.max, snappedPercent: 100 * Double(snapped) / Double(moves))
    }
}
