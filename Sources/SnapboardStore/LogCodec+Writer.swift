import SnapboardCore

extension LogCodec {
    /// Writes one row: `LogCodec`'s layout.
    struct Writer {
        var bytes: [UInt8] = []
        /// True in format 2: each shape ends with a flags byte.
        var flagged = false

        init() { bytes.reserveCapacity(96) }

        mutating func u8(_ v: UInt8) { bytes.append(v) }
        mutating func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { bytes.append(contentsOf: $0) } }
        mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
        mutating func i64(_ v: Int) { u64(UInt64(bitPattern: Int64(v))) }
        mutating func f64(_ v: Double) { u64(v.bitPattern) }
        mutating func string(_ s: String) {
            let utf8 = Array(s.utf8)
            withUnsafeBytes(of: UInt16(utf8.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: utf8)
        }

        mutating func placement(_ p: Placement) {
            string(p.id)
            for v in [p.center.x, p.center.y, p.size.width, p.size.height, p.scale, p.rotation] { f64(v) }
            i64(p.z)
        }

        mutating func shapes(_ all: [Shape]) {
            withUnsafeBytes(of: UInt32(all.count).littleEndian) { bytes.append(contentsOf: $0) }
            for s in all { shape(s) }
        }

        mutating func shape(_ s: Shape) {
            string(s.id)
            switch s.kind {
            case .dot: u8(0)
            case .roundedRect: u8(1)
            case .oval: u8(2)
            case .triangle: u8(3)
            case .polygon(let sides): u8(4); i64(sides)
            case .star(let points, let inner): u8(5); i64(points); f64(inner)
            case .fractal(let depth): u8(6); i64(depth)
            case .text: u8(7)
            case .note: u8(8)
            case .line: u8(9)
            case .arrow: u8(10)
            }
            for v in [s.center.x, s.center.y, s.size.width, s.size.height, s.scale, s.rotation, s.fill.h, s.fill.s, s.fill.b, s.fill.a] {
                f64(v)
            }
            u8(LogCodec.code(of: s.hatch))
            i64(s.z)
            guard flagged else { return }
            let hasLook = Writer.hasLook(s), bound = Writer.isBound(s)
            u8((s.locked ? 1 : 0) | (hasLook ? 2 : 0) | (bound ? 4 : 0))
            if hasLook {
                style(s.style)
                string(s.text)
                string(s.group ?? "")
            }
            if bound {
                binding(s.from)
                binding(s.to)
            }
        }

        static func hasLook(_ s: Shape) -> Bool { !s.style.isStandard || !s.text.isEmpty || s.group != nil }

        static func isBound(_ s: Shape) -> Bool { s.from != nil || s.to != nil }

        mutating func binding(_ b: Binding?) {
            guard let b else { return u8(0) }
            u8(1)
            string(b.shape)
            switch b.anchor {
            case .center: u8(0)
            case .top: u8(1)
            case .right: u8(2)
            case .bottom: u8(3)
            case .left: u8(4)
            case .point(let u, let v): u8(5); f64(u); f64(v)
            }
        }

        mutating func style(_ s: ShapeStyle) {
            i64(s.stroke.map { Int($0) } ?? -1)
            for v in [s.strokeWidth, s.opacity, s.fontSize] { f64(v) }
        }

        mutating func look(_ l: ShapeLook) {
            for v in [l.fill.h, l.fill.s, l.fill.b, l.fill.a] { f64(v) }
            style(l.style)
            string(l.text)
            string(l.group ?? "")
        }
    }
}
