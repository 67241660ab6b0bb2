import Foundation
import Testing

@testable import SnapboardCore
@testable import SnapboardStore

// The storage contract suite (memory, SQLite, PostgreSQL) is Tests/SnapboardPostgresTests/StoreContractTests.swift.

@Suite("Op log codec")
struct LogCodecTests {
    @Test("Every kind of committed op survives encoding and decoding exactly")
    func roundTrip() throws {
        var canvas = try Canvas(id: "codec")
        let p = Participant(id: "p")
        var ops: [CommittedOp] = []
        for (i, kind) in ShapeKind.names.enumerated() {
            var spec = ShapeSpec(kind: kind)
            spec.hatch = Hatch.allCases[i % 3]
            ops.append(try canvas.apply(.snap(at: Point(x: Double(50 + i * 120), y: 333.3), shapeID: "é-\(i)".replacingOccurrences(of: "é", with: "e"), spec: spec), by: p).commit!)
        }
        ops.append(try canvas.apply(.rotate("e-3", phase: nil, radians: 1.234), by: p).commit!)
        ops.append(try canvas.apply(.scale("e-5", phase: nil, factor: 0.37, anchor: Point(x: 1, y: 2)), by: p).commit!)
        ops.append(try canvas.apply(.delete(["e-1", "e-2"]), by: p).commit!)
        ops.append(canvas.apply(effect: try #require(canvas.reverting(ops.last!).effect)).commit!)
        ops.append(try canvas.apply(.clear, by: p).commit!)
        ops.append(.place(Placement(of: Shape(id: "x", kind: .dot, center: .zero, size: Size(width: 1, height: 1), fill: .seedDefault(hue: 0), z: 0)), before: nil))
        #expect(ops.contains { if case .remove = $0 { true } else { false } } && ops.contains { if case .restore = $0 { true } else { false } })
        for op in ops { #expect(try LogCodec.decode(LogCodec.encode(op)) == op) }
        // A clear of many of the smallest shapes (one-character ids) reads back whole.
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let small = letters.enumerated().map { i, c in
            Shape(id: String(c), kind: .dot, center: Point(x: Double(i), y: 1), size: Size(width: 4, height: 4), fill: .seedDefault(hue: 0), z: i)
        }
        #expect(try LogCodec.decode(LogCodec.encode(.clear(removed: small))) == .clear(removed: small))
        // Rows written before 1.1 (tags 2 and 3 without what undo needs) still read.
        #expect(try LogCodec.decode([1, 3]) == .clear(removed: []))
    }

    @Test("Damaged rows are refused, not trapped on")
    func damaged() throws {
        let bytes = LogCodec.encode(.clear(removed: []))
        #expect(throws: (any Error).self) { try LogCodec.decode([]) }
        #expect(throws: (any Error).self) { try LogCodec.decode([9] + bytes.dropFirst()) }
        var place = Placement(of: Shape(id: "x", kind: .dot, center: .zero, size: Size(width: 1, height: 1), fill: .seedDefault(hue: 0), z: 0))
        place.z = 3
        #expect(throws: (any Error).self) { try LogCodec.decode(Array(LogCodec.encode(.place(place, before: nil)).dropLast(3))) }
    }
}
