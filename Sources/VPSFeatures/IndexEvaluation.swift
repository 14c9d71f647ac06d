/// Recall and speed of an approximate index against exhaustive search on the same queries.
///
/// Used by the tests (recall threshold) and by `multiset bench features` (recall and speed-up
/// in the report). Both searches run on the calling thread, one after the other.
public struct IndexEvaluation: Hashable, Sendable {
    /// Queries evaluated.
    public var queryCount: Int
    /// Descriptors in the index.
    public var indexedCount: Int
    /// Fraction of queries whose approximate nearest neighbour is at the exact nearest distance
    /// (ties count as hits; a query with no exact neighbour counts as a hit).
    public var recallAt1: Double
    /// Queries whose exact two nearest pass Lowe's ratio test at `ratio` (the ones that become
    /// matches); nil when `k` < 2.
    public var ratioMatchCount: Int?
    /// Recall@1 over the `ratioMatchCount` queries: how many of the matches a localizer would
    /// get from brute force the index still finds at the same distance (1 when there are none).
    public var ratioMatchRecall: Double?
    /// Wall-clock seconds of `BruteForceMatcher.nearest` over all queries.
    public var bruteForceSeconds: Double
    /// Wall-clock seconds of the index's `nearest` over all queries.
    public var indexSeconds: Double
    /// Mean number of exact distances the index computed per query.
    public var meanDistanceComputations: Double

    /// Brute-force time over index time.
    public var speedUp: Double { indexSeconds > 0 ? bruteForceSeconds / indexSeconds : .infinity }

    /// Runs `queries` through `index` and through brute force, and compares the nearest distances.
    ///
    /// - Parameters:
    ///   - index: the approximate index.
    ///   - queries: query descriptors.
    ///   - k: neighbours requested from both (recall looks at the first), ≥ 1; 2 matches the
    ///     ratio-test workload.
    ///   - ratio: Lowe's ratio defining `ratioMatchCount`.
    /// - Complexity: O(queries × indexed) for the brute-force reference.
    public init(index: some BinaryDescriptorIndex, queries: BinaryDescriptors, k: Int = 2, ratio: Float = 0.8) {
        let clock = ContinuousClock()
        var approximate = NearestNeighbors(k: k, queryCount: 0)
        let indexDuration = clock.measure { approximate = index.nearest(queries, k: k) }
        var exact = NearestNeighbors(k: k, queryCount: 0)
        let bruteDuration = clock.measure { exact = BruteForceMatcher.nearest(queries, in: index.descriptors, k: k) }
        var hits = 0, ratioQueries = 0, ratioHits = 0
        for q in 0..<queries.count {
            guard let truth = exact.nearest(q) else {
                hits += 1
                continue
            }
            let hit = approximate.nearest(q).map { $0.distance <= truth.distance } ?? false
            if hit { hits += 1 }
            let neighbours = exact[q]
            if neighbours.count >= 2, truth.distance < ratio * neighbours[neighbours.startIndex + 1].distance {
                ratioQueries += 1
                if hit { ratioHits += 1 }
            }
        }
        ratioMatchCount = k >= 2 ? ratioQueries : nil
        ratioMatchRecall = k >= 2 ? (ratioQueries == 0 ? 1 : Double(ratioHits) / Double(ratioQueries)) : nil
        queryCount = queries.count
        indexedCount = index.descriptors.count
        recallAt1 = queries.isEmpty ? 1 : Double(hits) / Double(queries.count)
        bruteForceSeconds = Self.seconds(bruteDuration)
        indexSeconds = Self.seconds(indexDuration)
        meanDistanceComputations =
            queries.isEmpty ? 0 : Double(approximate.distanceComputations) / Double(queries.count)
    }

    private static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
}
