/// A client's WebSocket frames (RFC 6455): unfragmented, and masked as a client's must be.
public enum ClientFrame {
    /// A text message (opcode 0x1, RFC 6455 section 5.2).
    public static let text: UInt8 = 0x1
    /// A binary message (0x2).
    public static let binary: UInt8 = 0x2
    /// A close frame (0x8).
    public static let close: UInt8 = 0x8
    /// A ping (0x9).
    public static let ping: UInt8 = 0x9
    /// A pong (0xA), the answer to a ping.
    public static let pong: UInt8 = 0xA

    /// Appends to `out` one final frame of `opcode` carrying `payload`, masked with `mask` (its bytes in
    /// little-endian order are the frame's four masking bytes).
    public static func append(opcode: UInt8, payload: UnsafeRawBufferPointer, mask: UInt32, to out: inout [UInt8]) {
        let n = payload.count
        out.append(0x80 | opcode)
        if n < 126 {
            out.append(0x80 | UInt8(n))
        } else if n <= 0xFFFF {
            out.append(0x80 | 126)
            out.append(UInt8(n >> 8))
            out.append(UInt8(n & 0xFF))
        } else {
            out.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: UInt64(n) >> UInt64(shift))) }
        }
        for shift in stride(from: 0, through: 24, by: 8) { out.append(UInt8(truncatingIfNeeded: mask >> UInt32(shift))) }
        let start = out.count
        out.append(contentsOf: payload)
        out.withUnsafeMutableBytes { bytes in
            applyMask(mask, to: UnsafeMutableRawBufferPointer(rebasing: bytes[start...]))
        }
    }

    /// XORs `bytes` with the four masking bytes of `mask` in turn (masking and unmasking alike), eight
    /// bytes at a time.
    public static func applyMask(_ mask: UInt32, to bytes: UnsafeMutableRawBufferPointer) {
        // The eight bytes mask, mask in memory, read as a native integer.
        let word = (UInt64(mask) | UInt64(mask) << 32).littleEndian
        var i = 0
        while i + 8 <= bytes.count {
            let v = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            bytes.storeBytes(of: v ^ word, toByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < bytes.count {
            bytes[i] ^= UInt8(truncatingIfNeeded: mask >> UInt32(8 * (i & 3)))
            i += 1
        }
    }
}

/// Masks for client frames: a xorshift generator, seeded once. RFC 6455 asks for masks a proxy cannot
/// predict; a load generator on loopback needs only that they vary, without a system call a frame.
public struct MaskGenerator {
    private var state: UInt64

    /// A generator whose masks follow from `seed` (any value; zero is replaced, as xorshift needs).
    public init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

    /// The next mask.
    public mutating func next() -> UInt32 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return UInt32(truncatingIfNeeded: state >> 16)
    }
}
