import VPSGeometry

/// 256-bit binary codes of float descriptors by the signs of random projections (Charikar's
/// "SimHash", STOC 2002): bit b of a descriptor x is set when `r_b · (x − μ) > 0`, with `r_b` a
/// seeded Gaussian direction and μ a centre (the mean descriptor of the set the codes index).
///
/// For two descriptors at angle θ about μ, each bit differs with probability θ / π, so the
/// Hamming distance between codes estimates the angle (256 · θ / π bits on average). The codes let
/// float (SIFT) descriptors use the binary LSH index and Hamming kernels for approximate search
/// (retrieval votes); exact matching stays in Euclidean distance. Centring matters for
/// non-negative descriptors such as SIFT, whose raw angles are all below 90°.
///
/// Deterministic: the directions depend only on `seed` and the dimension.
public struct SignProjectionHash: Sendable, Equatable {
    /// Descriptor dimension.
    public let dimension: Int
    /// Centre subtracted before projecting (`dimension` floats).
    public let center: [Float]
    /// 256 × `dimension` projection directions, row-major.
    let directions: [Float]

    /// Hash of `dimension`-float descriptors about `center` (zero when nil).
    public init(dimension: Int, center: [Float]? = nil, seed: UInt64 = 0x5349_4654_4853_4831) {
        precondition(dimension > 0, "dimension must be positive")
        precondition(center == nil || center!.count == dimension, "centre length must equal the dimension")
        self.dimension = dimension
        self.center = center ?? [Float](repeating: 0, count: dimension)
        var rng = SplitMix64(seed: seed &+ UInt64(dimension))
        directions = (0..<(BinaryDescriptors.bitCount * dimension)).map { _ in Float(rng.nextGaussian()) }
    }

    /// A hash centred on the mean of `descriptors` (zero when empty).
    public init(centeredOn descriptors: FloatDescriptors, seed: UInt64 = 0x5349_4654_4853_4831) {
        let n = descriptors.dimension
        var mean = [Double](repeating: 0, count: n)
        for i in 0..<descriptors.count {
            let base = n * i
            for d in 0..<n { mean[d] += Double(descriptors.values[base + d]) }
        }
        let count = Double(max(1, descriptors.count))
        self.init(dimension: n, center: mean.map { Float($0 / count) }, seed: seed)
    }

    /// The codes of `descriptors` (same dimension), in order.
    /// - Complexity: O(count × 256 × dimension).
    public func codes(_ descriptors: FloatDescriptors) -> BinaryDescriptors {
        precondition(descriptors.dimension == dimension, "descriptor dimension differs from the hash's")
        var words = [UInt64](repeating: 0, count: BinaryDescriptors.wordsPerDescriptor * descriptors.count)
        var centered = [Float](repeating: 0, count: dimension)
        descriptors.values.withUnsafeBufferPointer { values in
            directions.withUnsafeBufferPointer { r in
                for i in 0..<descriptors.count {
                    let base = dimension * i
                    for d in 0..<dimension { centered[d] = values[base + d] - center[d] }
                    for b in 0..<BinaryDescriptors.bitCount {
                        let row = b * dimension
                        var dot: Float = 0
                        for d in 0..<dimension { dot += r[row + d] * centered[d] }
                        if dot > 0 { words[4 * i + b / 64] |= 1 << UInt64(b % 64) }
                    }
                }
            }
        }
        return BinaryDescriptors(words: words)
    }
}
