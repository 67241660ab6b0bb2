import SnapboardCore

/// The op log's row format: a compact binary form of `CommittedOp`. Recovery decodes every op after the
/// last checkpoint, so this is on the path that must replay a million ops in seconds; JSON was 5× slower.
///
/// Layout, little-endian: a format byte (1), then a tag: 1 `create` (shape, then the generator state as
/// u64), 2 `place` (a placement: id, x, y, w, h, scale, rotation as f64, z as i64), 3 `clear`, and since
/// 1.1 (tags only added, so older rows still read): 4 `place` with the placement before (two placements),
/// 5 `clear` with the shapes it removed, 6 `remove` and 7 `restore` (a u32 count, then the shapes). A shape
/// is its id, kind
/// (tag u8, then sides, points as i64 / inner as f64 / depth as i64 where they apply), x, y, w, h, scale,
/// rotation, fill h, s, b, a (f64), hatch (u8) and z (i64). Strings are a u16 length and UTF-8.
///
/// 1.6 adds two tags, 8 `order` (a u32 count, then id, z and z before as i64 each) and 9 `lock` (locked as
/// u8, a u32 count, then ids), and format 2: the same layout with a flags byte after each shape's z (bit 0:
/// locked). A row is written in format 1 unless one of its shapes is locked, so rows without locked
/// shapes stay readable by servers before 1.6.
///
/// 1.7 adds the kinds 7 `text` and 8 `note`, the flag bit 1 (a look follows the flags: `style` and `text`,
/// set on a shape whose style or text is not the default), and tag 10 `edit` (a u32 count, then id, the look
/// after and the look before, each fill h, s, b, a as f64 and then the style and text). A style is the
/// stroke as i64 (−1 for none, else 0xRRGGBB), then strokeWidth, opacity and fontSize as f64; a text is a
/// string, and a look's and a shape's look end with the group id as a string ("" for none). A row is in
/// format 2 when one of its shapes is locked, has a look or is a bound connector.
///
/// Connectors (1.7, P28) add the kinds 9 `line` and 10 `arrow`, the flag bit 2 (the connector's ends follow
/// the look, if any: for `from` then `to`, a u8 0 for free or 1 for bound, and when bound the shape id, the
/// anchor as u8, 0 centre, 1 top, 2 right, 3 bottom, 4 left, or 5 a point followed by u and v as f64), and
/// tag 11 `reconnect` (the connector after, then before). Selection gestures (P29) add tag 12 `arrange` (a u32
/// count, then each shape's placement after and before).
enum LogCodec {
    static let format: UInt8 = 1
    /// The format whose shapes end with a flags byte.
    static let flaggedFormat: UInt8 = 2

    /// A hatch's byte on disk. Stable codes, not the enum's order: reordering `Hatch` must not change
    /// what a stored byte means (a test pins them).
    static func code(of hatch: Hatch) -> UInt8 {
        switch hatch {
        case .none: 0
        case .hatch: 1
        case .crossHatch: 2
        }
    }

    static func hatch(code: UInt8) -> Hatch? {
        switch code {
        case 0: Hatch.none
        case 1: .hatch
        case 2: .crossHatch
        default: nil
        }
    }

    struct DecodeError: Error, CustomStringConvertible {
        var description: String
    }

    static func encode(_ op: CommittedOp) -> [UInt8] {
        var w = Writer()
        let shapes: [Shape]
        switch op {
        case .create(let shape, _): shapes = [shape]
        case .clear(let all), .remove(let all), .restore(let all): shapes = all
        case .reconnect(let after, let before): shapes = [after, before]
        case .place, .order, .lock, .edit, .arrange: shapes = []
        }
        w.flagged = shapes.contains { $0.locked || Writer.hasLook($0) || Writer.isBound($0) }
        w.u8(w.flagged ? flaggedFormat : format)
        switch op {
        case .create(let shape, let rng):
            w.u8(1)
            w.shape(shape)
            w.u64(rng)
        case .place(let p, nil):
            w.u8(2)
            w.placement(p)
        case .place(let p, let before?):
            w.u8(4)
            w.placement(p)
            w.placement(before)
        case .clear(let shapes):
            w.u8(5)
            w.shapes(shapes)
        case .remove(let shapes):
            w.u8(6)
            w.shapes(shapes)
        case .restore(let shapes):
            w.u8(7)
            w.shapes(shapes)
        case .order(let moves):
            w.u8(8)
            w.u32(moves.count)
            for move in moves {
                w.string(move.id)
                w.i64(move.z)
                w.i64(move.before)
            }
        case .lock(let ids, let locked):
            w.u8(9)
            w.u8(locked ? 1 : 0)
            w.u32(ids.count)
            for id in ids { w.string(id) }
        case .edit(let changes):
            w.u8(10)
            w.u32(changes.count)
            for change in changes {
                w.string(change.id)
                w.look(change.look)
                w.look(change.before)
            }
        case .reconnect(let after, let before):
            w.u8(11)
            w.shape(after)
            w.shape(before)
        case .arrange(let after, let before):
            w.u8(12)
            w.u32(after.count)
            for (a, b) in zip(after, before) {
                w.placement(a)
                w.placement(b)
            }
        }
        return w.bytes
    }

    static func decode(_ bytes: [UInt8]) throws -> CommittedOp {
        try bytes.withUnsafeBytes { try decode($0) }
    }

    /// Decodes a row where it lies: `bytes` need only outlive the call.
    static func decode(_ bytes: UnsafeRawBufferPointer) throws -> CommittedOp {
        var r = Reader(bytes: bytes)
        switch try r.u8() {
        case format: r.flagged = false
        case flaggedFormat: r.flagged = true
        default: throw DecodeError(description: "unknown op log format")
        }
        switch try r.u8() {
        case 1:
            let shape = try r.shape()
            return .create(shape, rng: try r.u64())
        case 2:
            return .place(try r.placement(), before: nil)
        case 3:
            return .clear(removed: [])
        case 4:
            return .place(try r.placement(), before: try r.placement())
        case 5:
            return .clear(removed: try r.shapes())
        case 6:
            return .remove(try r.shapes())
        case 7:
            return .restore(try r.shapes())
        case 8:
            // An entry takes at least 18 bytes (an empty id's length and two i64s).
            let n = try r.count(atLeast: 18)
            return .order(try (0..<n).map { _ in ZMove(id: try r.string(), z: try r.i64(), before: try r.i64()) })
        case 9:
            let locked: Bool
            switch try r.u8() {
            case 0: locked = false
            case 1: locked = true
            case let v: throw DecodeError(description: "bad locked flag \(v)")
            }
            let n = try r.count(atLeast: 2)
            return .lock(try (0..<n).map { _ in try r.string() }, locked: locked)
        case 10:
            // An entry takes at least 138 bytes: an empty id's length and two looks of 68.
            let n = try r.count(atLeast: 138)
            return .edit(try (0..<n).map { _ in LookChange(id: try r.string(), look: try r.look(), before: try r.look()) })
        case 11:
            return .reconnect(try r.shape(), before: try r.shape())
        case 12:
            // An entry takes at least 116 bytes: two placements, each an empty id's length, six f64s and z.
            let n = try r.count(atLeast: 116)
            var after: [Placement] = [], before: [Placement] = []
            for _ in 0..<n {
                after.append(try r.placement())
                before.append(try r.placement())
            }
            return .arrange(after, before: before)
        case let tag:
            throw DecodeError(description: "unknown op tag \(tag)")
        }
    }
}

extension CommittedOp {
    /// The op log row of this effect (`LogCodec`'s layout): what the store writes, for tools and the fuzzer.
    public var loggedBytes: [UInt8] { LogCodec.encode(self) }

    /// Decodes an op log row; throws on a row that is truncated or has an unknown tag. The numbers it holds
    /// are not checked here: `StoredCanvas.problem` does that against the canvas's config.
    public init(loggedBytes bytes: [UInt8]) throws {
        self = try LogCodec.decode(bytes)
    }
}
