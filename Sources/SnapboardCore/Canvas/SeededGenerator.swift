/// SplitMix64: a small, fast generator whose whole state is one `UInt64`, so a canvas can store it in its
/// snapshot and replay stays deterministic. Not for anything that needs unpredictability.
public struct SeededGenerator: RandomNumberGenerator, Hashable, Sendable, Codable {
    public var state: UInt64

    public init(state: UInt64) { self.state = state }

    /// A generator seeded from a string with FNV-1a, which, unlike `Hasher`, gives the same value in every process.
    public init(seed: String) {
        self.init(state: Self.fnv1a(seed.utf8))
    }

    /// The 64-bit FNV-1a hash of `bytes`: the same in every process and on every machine.
    public static func fnv1a(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// A double in `0..<1` with 53 random bits.
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
