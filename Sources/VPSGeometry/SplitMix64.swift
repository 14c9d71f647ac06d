/// A small, fast, seedable pseudo-random generator (Steele, Lea & Flood, 2014).
///
/// Every random choice in the project goes through one of these with an explicit seed, so runs
/// are reproducible. Not cryptographic.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// Internal state; advances by the golden-ratio increment on every draw.
    public var state: UInt64

    /// Creates a generator from a seed.
    @inlinable public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    @inlinable public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform integer in `0..<bound` (Lemire's multiply-shift; bias below 2⁻³² for small bounds).
    @inlinable public mutating func nextInt(below bound: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(truncatingIfNeeded: next() >> 32) &* UInt64(bound)) >> 32)
    }

    /// A uniform `Double` in [0, 1).
    @inlinable public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A standard normal sample (Box–Muller).
    public mutating func nextGaussian() -> Double {
        var u = nextUnit()
        while u <= 1e-300 { u = nextUnit() }
        let v = nextUnit()
        return (-2 * logD(u)).squareRoot() * cosD(2 * .pi * v)
    }

    /// A seed derived from a string (FNV-1a), so tests can seed from their own names.
    public static func seed(from name: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in name.utf8 {
            h ^= UInt64(b)
            h &*= 0x100_0000_01b3
        }
        return h
    }
}
