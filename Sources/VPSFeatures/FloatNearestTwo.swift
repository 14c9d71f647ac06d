import CFloatKernels

/// Exhaustive 2-nearest-neighbour search for float descriptors (SIFT) with the CPU's widest FMA.
///
/// The C kernel (`CFloatKernels`) packs the train set into dimension-major blocks and picks
/// AVX-512F, AVX2 + FMA or portable C at run time (the package targets the x86-64 baseline and may
/// not pass `-mavx2`). Distances are Euclidean, from |q|² + |t|² − 2 q·t in single precision, so
/// they agree with `BruteForceMatcher.nearest(_:in:k:)` to float rounding (ties → lower index).
public enum FloatNearestTwo {
    /// Kernel chosen on this CPU: "avx512f", "avx2-fma" or "portable".
    public static var kernel: String {
        switch cfloat_kernel_level() {
        case 2: return "avx512f"
        case 1: return "avx2-fma"
        default: return "portable"
        }
    }

    /// The two nearest `train` descriptors of each query, nearest first, with Euclidean distances.
    ///
    /// - Parameters:
    ///   - trainIndices: the index reported for each train descriptor; nil: its position.
    ///   - distinctTrainIndices: the second nearest is the nearest with another reported index than the
    ///     nearest's (several descriptors of one map point); needs `trainIndices`.
    /// - Complexity: O(queries × train × dimension), single-threaded; O(train × dimension) memory.
    public static func nearest(
        _ queries: FloatDescriptors, in train: FloatDescriptors, trainIndices: [Int32]? = nil,
        distinctTrainIndices: Bool = false
    ) -> NearestNeighbors {
        precondition(queries.dimension == train.dimension, "descriptor dimensions differ")
        let q = queries.count, n = train.count
        precondition(!distinctTrainIndices || trainIndices?.count == n, "distinct neighbours need every train index")
        var result = NearestNeighbors(k: 2, queryCount: q)
        guard q > 0, n > 0 else { return result }
        var bestIndex = [Int32](repeating: -1, count: q), best = [Float](repeating: .infinity, count: q)
        var secondIndex = [Int32](repeating: -1, count: q), second = [Float](repeating: .infinity, count: q)
        let status = queries.values.withUnsafeBufferPointer { qv in
            train.values.withUnsafeBufferPointer { tv in
                (distinctTrainIndices ? trainIndices : nil).withUnsafeBufferPointerOrNil { lv in
                    cfloat_nearest_two_labeled(
                        qv.baseAddress, Int32(q), tv.baseAddress, lv, Int32(n), Int32(queries.dimension), &bestIndex,
                        &best, &secondIndex, &second)
                }
            }
        }
        // Out of memory for the packed copy: the plain scan needs none (it ignores `distinctTrainIndices`,
        // so a second neighbour may then be the nearest's own point and its ratio test fail).
        guard status == 0 else {
            let found = BruteForceMatcher.nearest(queries, in: train, k: 2)
            return trainIndices.map { found.remappingTrain($0) } ?? found
        }
        var distances: [Float] = [0, 0]
        var indices: [Int32] = [0, 0]
        for i in 0..<q {
            var count = 0
            for (index, squared) in [(bestIndex[i], best[i]), (secondIndex[i], second[i])] where index >= 0 {
                indices[count] = trainIndices.map { $0[Int(index)] } ?? index
                distances[count] = squared.squareRoot()
                count += 1
            }
            result.store(query: i, distances: distances, indices: indices, count: count, transform: { $0 })
        }
        result.distanceComputations = q * n
        return result
    }
}
