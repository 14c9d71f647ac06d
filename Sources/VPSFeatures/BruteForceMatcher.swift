/// Exhaustive descriptor matching: Hamming distance for binary descriptors, Euclidean for float
/// ones.
///
/// Every query is compared with every train descriptor, one distance row at a time (see
/// `DistanceKernels`), so memory beyond the result is one row of `train.count` floats plus, for
/// the mutual check, two arrays of `train.count`. Single-threaded: the per-query loop is
/// independent and can be split across threads by the caller (the localizer already runs one
/// query image per task), which is why it is not parallelized here.
public enum BruteForceMatcher {
    /// The `k` nearest train descriptors of each query by Hamming distance, nearest first.
    ///
    /// - Parameters:
    ///   - queries: query descriptors.
    ///   - train: descriptors searched.
    ///   - k: neighbours per query, ≥ 1 (fewer when `train` has fewer).
    /// - Returns: neighbours with Hamming distances; ties keep the lower train index first.
    /// - Complexity: O(queries × train) distances.
    public static func nearest(_ queries: BinaryDescriptors, in train: BinaryDescriptors, k: Int) -> NearestNeighbors {
        scan(queries, train, k: k, columnMinima: false).neighbors
    }

    /// The `k` nearest train descriptors of each query by Euclidean distance, nearest first.
    ///
    /// - Parameters:
    ///   - queries: query descriptors.
    ///   - train: descriptors searched (same dimension).
    ///   - k: neighbours per query, ≥ 1 (fewer when `train` has fewer).
    /// - Returns: neighbours with Euclidean (not squared) distances; ties keep the lower index.
    /// - Complexity: O(queries × train × dimension).
    public static func nearest(_ queries: FloatDescriptors, in train: FloatDescriptors, k: Int) -> NearestNeighbors {
        scan(queries, train, k: k, columnMinima: false).neighbors
    }

    /// Matches binary descriptors under `criteria` (ratio test, mutual check, distance limit).
    ///
    /// - Parameters:
    ///   - queries: query descriptors.
    ///   - train: descriptors searched.
    ///   - criteria: which nearest neighbours to keep (default: Lowe's ratio test at 0.8).
    /// - Returns: at most one match per query, in query order, with Hamming distances.
    /// - Complexity: O(queries × train).
    public static func match(
        _ queries: BinaryDescriptors, _ train: BinaryDescriptors, criteria: MatchCriteria = MatchCriteria()
    ) -> [Match] {
        filter(scan(queries, train, k: criteria.ratio == nil ? 1 : 2, columnMinima: criteria.mutual), criteria)
    }

    /// Matches float descriptors under `criteria` (ratio test, mutual check, distance limit).
    ///
    /// - Parameters:
    ///   - queries: query descriptors.
    ///   - train: descriptors searched (same dimension).
    ///   - criteria: which nearest neighbours to keep (default: Lowe's ratio test at 0.8).
    /// - Returns: at most one match per query, in query order, with Euclidean distances.
    /// - Complexity: O(queries × train × dimension).
    public static func match(
        _ queries: FloatDescriptors, _ train: FloatDescriptors, criteria: MatchCriteria = MatchCriteria()
    ) -> [Match] {
        filter(kernelScan(queries, train, k: criteria.ratio == nil ? 1 : 2, columnMinima: criteria.mutual), criteria)
    }

    /// Matches two feature sets extracted under the same config.
    ///
    /// - Parameters:
    ///   - query: the query image's features.
    ///   - train: the features searched.
    ///   - criteria: which nearest neighbours to keep.
    /// - Returns: matches from `query` indices to `train` indices.
    /// - Throws: `FeaturesError.configMismatch` when the configs differ.
    public static func match(
        _ query: FeatureSet, _ train: FeatureSet, criteria: MatchCriteria = MatchCriteria()
    ) throws(FeaturesError) -> [Match] {
        try query.requireConfig(train.config)
        switch (query.descriptors, train.descriptors) {
        case (.binary(let q), .binary(let t)): return match(q, t, criteria: criteria)
        case (.float(let q), .float(let t)): return match(q, t, criteria: criteria)
        default: throw .descriptorKindMismatch
        }
    }

    // MARK: - Scanning

    /// Neighbours in kernel units (Hamming bits or squared L2) plus optional column minima.
    struct Scan {
        var neighbors: NearestNeighbors
        /// For each train descriptor, the first query at minimal distance (-1 when not computed).
        var columnArgmin: [Int32]
        /// For each train descriptor, its smallest and second smallest distance to a query, in
        /// reported units (infinity when there is no such query; empty when not computed).
        var columnBest: [Float] = []
        var columnSecond: [Float] = []
    }

    static func scan(_ queries: BinaryDescriptors, _ train: BinaryDescriptors, k: Int, columnMinima: Bool) -> Scan {
        if k <= 2 { return kernelScan(queries, train, k: k, columnMinima: columnMinima) }
        return queries.words.withUnsafeBufferPointer { q in
            train.words.withUnsafeBufferPointer { t in
                scanRows(
                    queryCount: queries.count, trainCount: train.count, k: k, columnMinima: columnMinima,
                    transform: { $0 }
                ) { i, row in
                    DistanceKernels.hammingRow(
                        query: q.baseAddress! + BinaryDescriptors.wordsPerDescriptor * i, train: t.baseAddress!,
                        count: train.count, into: row)
                }
            }
        }
    }

    /// `scan` for k ≤ 2 through the C kernels of `HammingNearestTwo` (AVX-512 / POPCNT at run time):
    /// rows query → train, column minima as the nearest query of each train descriptor. Same results,
    /// ties included (the lower index first).
    static func kernelScan(_ queries: BinaryDescriptors, _ train: BinaryDescriptors, k: Int, columnMinima: Bool) -> Scan
    {
        twoWayScan(
            queries.count, train.count, k: k, columnMinima: columnMinima,
            rows: { HammingNearestTwo.nearest(queries, in: train) },
            columns: { HammingNearestTwo.nearest(train, in: queries) })
    }

    /// `scan` for k ≤ 2 through the C kernels of `FloatNearestTwo` (AVX-512F / AVX2 + FMA at run time;
    /// the Swift rows below lower their fused multiply-adds to library calls on the x86-64 baseline,
    /// ~20× slower). Distances come from |q|² + |t|² − 2 q·t, equal to the rows' to float rounding.
    static func kernelScan(_ queries: FloatDescriptors, _ train: FloatDescriptors, k: Int, columnMinima: Bool) -> Scan {
        precondition(queries.dimension == train.dimension, "descriptor dimensions differ")
        return twoWayScan(
            queries.count, train.count, k: k, columnMinima: columnMinima,
            rows: { FloatNearestTwo.nearest(queries, in: train) },
            columns: { FloatNearestTwo.nearest(train, in: queries) })
    }

    /// Rows from a 2-nearest search query → train (`rows`), column minima from the search train →
    /// query (`columns`, run only for the mutual check), both with ties to the lower index.
    private static func twoWayScan(
        _ queryCount: Int, _ trainCount: Int, k: Int, columnMinima: Bool, rows: () -> NearestNeighbors,
        columns: () -> NearestNeighbors
    ) -> Scan {
        let two = rows()
        var neighbors = two
        if k == 1 {
            neighbors = NearestNeighbors(k: 1, queryCount: queryCount)
            for q in 0..<queryCount {
                guard let m = two.nearest(q) else { continue }
                var distance = m.distance
                var index = m.train
                neighbors.store(query: q, distances: &distance, indices: &index, count: 1, transform: { $0 })
            }
        }
        neighbors.distanceComputations = queryCount * trainCount
        var columnArgmin = [Int32](repeating: -1, count: columnMinima ? trainCount : 0)
        var columnBest = [Float](repeating: .infinity, count: columnMinima ? trainCount : 0)
        var columnSecond = columnBest
        if columnMinima && queryCount > 0 {
            let reverse = columns()
            for t in 0..<trainCount {
                let found = reverse[t]
                guard let first = found.first else { continue }
                columnArgmin[t] = first.train
                columnBest[t] = first.distance
                if found.count >= 2 { columnSecond[t] = found[found.startIndex + 1].distance }
            }
        }
        return Scan(
            neighbors: neighbors, columnArgmin: columnArgmin, columnBest: columnBest, columnSecond: columnSecond)
    }

    static func scan(_ queries: FloatDescriptors, _ train: FloatDescriptors, k: Int, columnMinima: Bool) -> Scan {
        precondition(queries.dimension == train.dimension, "descriptor dimensions differ")
        let dimension = queries.dimension
        return queries.values.withUnsafeBufferPointer { q in
            train.values.withUnsafeBufferPointer { t in
                scanRows(
                    queryCount: queries.count, trainCount: train.count, k: k, columnMinima: columnMinima,
                    transform: { $0.squareRoot() }
                ) { i, row in
                    DistanceKernels.squaredL2Row(
                        query: q.baseAddress! + dimension * i, train: t.baseAddress!, count: train.count,
                        dimension: dimension, into: row)
                }
            }
        }
    }

    /// The shared driver: fills one distance row per query, selects its top k and, optionally,
    /// tracks each column's minimum. `transform` maps kernel units to reported distances
    /// (monotonic). `fillRow` is only called when both sides are non-empty.
    static func scanRows(
        queryCount: Int, trainCount: Int, k: Int, columnMinima: Bool, transform: (Float) -> Float,
        fillRow: (Int, UnsafeMutablePointer<Float>) -> Void
    ) -> Scan {
        precondition(k >= 1, "k must be at least 1")
        var neighbors = NearestNeighbors(k: k, queryCount: queryCount)
        var columnArgmin = [Int32](repeating: -1, count: columnMinima ? trainCount : 0)
        guard queryCount > 0, trainCount > 0 else { return Scan(neighbors: neighbors, columnArgmin: columnArgmin) }
        var columnMin = [Float](repeating: .infinity, count: columnMinima ? trainCount : 0)
        var columnSecond = columnMin
        var row = [Float](repeating: 0, count: trainCount)
        var selection = TopKSelection(k: k)
        row.withUnsafeMutableBufferPointer { r in
            let rowPointer = r.baseAddress!
            for i in 0..<queryCount {
                fillRow(i, rowPointer)
                selection.select(from: UnsafeBufferPointer(r))
                selection.distances.withUnsafeBufferPointer { d in
                    selection.indices.withUnsafeBufferPointer { ix in
                        neighbors.store(
                            query: i, distances: d.baseAddress!, indices: ix.baseAddress!, count: selection.count,
                            transform: transform)
                    }
                }
                if columnMinima {
                    let queryIndex = Int32(truncatingIfNeeded: i)
                    columnMin.withUnsafeMutableBufferPointer { m in
                        columnSecond.withUnsafeMutableBufferPointer { m2 in
                            columnArgmin.withUnsafeMutableBufferPointer { a in
                                for j in 0..<trainCount where rowPointer[j] < m2[j] {
                                    if rowPointer[j] < m[j] {
                                        m2[j] = m[j]
                                        m[j] = rowPointer[j]
                                        a[j] = queryIndex
                                    } else {
                                        m2[j] = rowPointer[j]
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        neighbors.distanceComputations = queryCount * trainCount
        return Scan(
            neighbors: neighbors, columnArgmin: columnArgmin, columnBest: columnMin.map(transform),
            columnSecond: columnSecond.map(transform))
    }

    /// Applies `criteria` to the nearest (and second nearest) neighbours of each query.
    static func filter(_ scan: Scan, _ criteria: MatchCriteria) -> [Match] {
        guard criteria.mutual else {
            return scan.neighbors.matches(ratio: criteria.ratio, maxDistance: criteria.maxDistance)
        }
        let columnArgmin = scan.columnArgmin
        guard criteria.symmetricRatio, let ratio = criteria.ratio else {
            return scan.neighbors.matches(ratio: criteria.ratio, maxDistance: criteria.maxDistance) { best in
                columnArgmin[Int(best.train)] == best.query
            }
        }
        let best = scan.columnBest, second = scan.columnSecond
        return scan.neighbors.matches(ratio: ratio, maxDistance: criteria.maxDistance) { match in
            let t = Int(match.train)
            // A single query (second = ∞) passes, as a single train candidate does the other way.
            return columnArgmin[t] == match.query && (second[t] == .infinity || best[t] < ratio * second[t])
        }
    }
}
