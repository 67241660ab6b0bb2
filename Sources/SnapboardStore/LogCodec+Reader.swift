import SnapboardCore

extension LogCodec {
    /// Reads one row back, refusing damage with `DecodeError` rather than trapping on it. It reads the row
    /// where it lies (a column blob SQLite holds, or an array's storage) and copies out only what the op keeps:
    /// decoding a row allocates nothing unless the op holds arrays or strings longer than 15 bytes.
    /// Every read goes through `take`, the one bounds check.
    struct Reader {
        let bytes: UnsafeRawBufferPointer
        var at = 0
        /// True in format 2: each shape ends with a flags byte.
        var flagged = false

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        /// A u32 count of entries that take at least `size` bytes each: one the row cannot hold is damage,
        /// not a huge allocation.
        mutating func count(atLeast size: Int) throws -> Int {
            let n = Int(try u32())
            guard n <= (bytes.count - at) / size else { throw DecodeError(description: "bad count \(n)") }
            return n
        }

        /// The offset of the next `n` bytes, which the row must hold; moves past them.
        mutating func take(_ n: Int) throws -> Int {
            guard n <= bytes.count - at else { throw DecodeError(description: "truncated op") }
            defer { at += n }
            return at
        }

        mutating func u8() throws -> UInt8 { bytes[try take(1)] }
        mutating func u16() throws -> UInt16 { UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: try take(2), as: UInt16.self)) }
        mutating func u32() throws -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: try take(4), as: UInt32.self)) }
        mutating func u64() throws -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: try take(8), as: UInt64.self)) }
        mutating func i64() throws -> Int { Int(Int64(bitPattern: try u64())) }
        mutating func f64() throws -> Double { Double(bitPattern: try u64()) }
        mutating func string() throws -> String {
            let n = Int(try u16())
            let start = try take(n)
            let utf8 = UnsafeRawBufferPointer(rebasing: bytes[start..<(start + n)])
            // ASCII (every id, most texts) is valid UTF-8 as it stands, and `String(decoding:)` takes it several
            // times faster than the generic validating initialiser, which stays for the rest.
            if utf8.allSatisfy({ $0 < 0x80 }) { return String(decoding: utf8, as: UTF8.self) }
            guard let s = String(validating: utf8, as: UTF8.self) else { throw DecodeError(description: "bad string") }
            return s
        }

        mutating func placement() throws -> Placement {
            let id = try string()
            let x = try f64(), y = try f64(), w = try f64(), h = try f64(), scale = try f64(), rotation = try f64()
            return Placement(id: id, center: Point(x: x, y: y), size: Size(width: w, height: h), scale: scale, rotation: rotation, z: try i64())
        }

        mutating func shapes() throws -> [Shape] {
            let n = Int(try u32())
            // A shape takes at least 92 bytes (an empty id's length, the kind, ten f64s, the hatch, z): a count
            // the row cannot hold is damage, not a huge allocation.
            guard n <= (bytes.count - at) / 92 else { throw DecodeError(description: "bad shape count \(n)") }
            return try (0..<n).map { _ in try shape() }
        }

        mutating func shape() throws -> Shape {
            let id = try string()
            let kind: ShapeKind
            switch try u8() {
            case 0: kind = .dot
            case 1: kind = .roundedRect
            case 2: kind = .oval
            case 3: kind = .triangle
            case 4: kind = .polygon(sides: try i64())
            case 5: kind = .star(points: try i64(), innerRatio: try f64())
            case 6: kind = .fractal(depth: try i64())
            case 7: kind = .text
            case 8: kind = .note
            case 9: kind = .line
            case 10: kind = .arrow
            case let tag: throw DecodeError(description: "unknown kind \(tag)")
            }
            let x = try f64(), y = try f64(), w = try f64(), h = try f64(), scale = try f64(), rotation = try f64()
            let fill = HSBColor(h: try f64(), s: try f64(), b: try f64(), a: try f64())
            let hatchCode = try u8()
            guard let hatch = LogCodec.hatch(code: hatchCode) else { throw DecodeError(description: "unknown hatch \(hatchCode)") }
            let z = try i64()
            var locked = false, style = ShapeStyle.standard, text = "", group: String?, from: Binding?, to: Binding?
            if flagged {
                let flags = try u8()
                guard flags & ~7 == 0 else { throw DecodeError(description: "unknown shape flags \(flags)") }
                locked = flags & 1 != 0
                if flags & 2 != 0 {
                    style = try self.style()
                    text = try string()
                    group = try self.group()
                }
                if flags & 4 != 0 {
                    from = try binding()
                    to = try binding()
                }
            }
            return Shape(id: id, kind: kind, center: Point(x: x, y: y), size: Size(width: w, height: h), scale: scale,
                         rotation: rotation, fill: fill, hatch: hatch, z: z, locked: locked, style: style, text: text, group: group,
                         from: from, to: to)
        }

        mutating func binding() throws -> Binding? {
            switch try u8() {
            case 0: return nil
            case 1: break
            case let v: throw DecodeError(description: "bad binding flag \(v)")
            }
            let shape = try string()
            let anchor: Anchor
            switch try u8() {
            case 0: anchor = .center
            case 1: anchor = .top
            case 2: anchor = .right
            case 3: anchor = .bottom
            case 4: anchor = .left
            case 5: anchor = .point(u: try f64(), v: try f64())
            case let v: throw DecodeError(description: "unknown anchor \(v)")
            }
            return Binding(shape: shape, anchor: anchor)
        }

        mutating func style() throws -> ShapeStyle {
            let stroke = try i64()
            guard (-1...0xFF_FFFF).contains(stroke) else { throw DecodeError(description: "bad stroke \(stroke)") }
            return ShapeStyle(stroke: stroke < 0 ? nil : UInt32(stroke), strokeWidth: try f64(), opacity: try f64(), fontSize: try f64())
        }

        mutating func look() throws -> ShapeLook {
            let fill = HSBColor(h: try f64(), s: try f64(), b: try f64(), a: try f64())
            return ShapeLook(fill: fill, style: try style(), text: try string(), group: try group())
        }

        /// A group id, "" for none.
        mutating func group() throws -> String? {
            let id = try string()
            return id.isEmpty ? nil : id
        }
    }
}
