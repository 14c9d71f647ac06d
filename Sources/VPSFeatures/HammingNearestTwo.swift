import CHammingKernels

/// Exhaustive 2-nearest-neighbour search for binary descriptors with the CPU's fastest popcount.
///
/// The package targets the x86-64 baseline, whose popcount is a software sequence; this kernel
/// (C, `CHammingKernels`) picks AVX-512 VPOPCNTDQ or AVX2 (eight descriptors per step each) or POPCNT at
/// run time, about 10× faster than the portable path on a CPU with AVX-512. Every kernel gives the same
/// results, which equal `BruteForceMatcher.nearest(_:in:k: 2)`, ties included.
public enum HammingNearestTwo {
    /// Kernel chosen on this CPU: "avx512-vpopcntdq", "avx2", "popcnt" or "portable".
    public static var kernel: String { kernelName(level: bestLevel) }

    /// The best kernel level this CPU runs: 3 AVX-512 VPOPCNTDQ, 2 AVX2, 1 POPCNT, 0 portable.
    public static var bestLevel: Int { Int(chamming_kernel_level()) }

    /// The name of a kernel level (see `bestLevel`).
    public static func kernelName(level: Int) -> String {
        switch level {
        case 3...: return "avx512-vpopcntdq"
        case 2: return "avx2"
        case 1: return "popcnt"
        default: return "portable"
        }
    }

    /// The two nearest `train` descriptors of each query, nearest first, with Hamming distances.
    ///
    /// - Parameters:
    ///   - trainIndices: the index reported for each train descriptor (e.g. its map point
    ///     when `train` is a gathered subset); nil: its position in `train`.
    ///   - distinctTrainIndices: the second nearest is the nearest with another reported index than the
    ///     nearest's (several descriptors of one map point, one ratio test between distinct points);
    ///     needs `trainIndices`.
    ///   - kernelLevel: at most this kernel (see `bestLevel`; a level the CPU lacks runs the best it has);
    ///     nil: the best. Tests compare the kernels with it.
    /// - Complexity: O(queries × train), single-threaded.
    public static func nearest(
        _ queries: BinaryDescriptors, in train: BinaryDescriptors, trainIndices: [Int32]? = nil,
        distinctTrainIndices: Bool = false, kernelLevel: Int? = nil
    ) -> NearestNeighbors {
        let q = queries.count, n = train.count
        precondition(!distinctTrainIndices || trainIndices?.count == n, "distinct neighbours need every train index")
        var result = NearestNeighbors(k: 2, queryCount: q)
        guard q > 0, n > 0 else { return result }
        var bestIndex = [Int32](repeating: -1, count: q), bestDistance = [Int32](repeating: 0, count: q)
        var secondIndex = [Int32](repeating: -1, count: q), secondDistance = [Int32](repeating: 0, count: q)
        queries.words.withUnsafeBufferPointer { qw in
            train.words.withUnsafeBufferPointer { tw in
                let labels = distinctTrainIndices ? trainIndices : nil
                labels.withUnsafeBufferPointerOrNil { lw in
                    chamming_nearest_two_labeled_at_level(
                        Int32(kernelLevel ?? -1), qw.baseAddress, Int32(q), tw.baseAddress, lw, Int32(n),
                        &bestIndex, &bestDistance, &secondIndex, &secondDistance)
                }
            }
        }
        var distances: [Float] = [0, 0]
        var indices: [Int32] = [0, 0]
        for i in 0..<q {
            var count = 0
            for (index, distance) in [(bestIndex[i], bestDistance[i]), (secondIndex[i], secondDistance[i])]
            where index >= 0 {
                indices[count] = trainIndices.map { $0[Int(index)] } ?? index
                distances[count] = Float(distance)
                count += 1
            }
            result.store(query: i, distances: distances, indices: indices, count: count, transform: { $0 })
        }
        result.distanceComputations = q * n
        return result
    }
}

extension Optional where Wrapped == [Int32] {
    /// The array's base address for a C call (nil when the array is nil or empty).
    func withUnsafeBufferPointerOrNil<R>(_ body: (UnsafePointer<Int32>?) -> R) -> R {
        guard let array = self else { return body(nil) }
        return array.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}
