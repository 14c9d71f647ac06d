/// The k nearest train descriptors of each query, sorted by increasing distance.
///
/// Stored flat, `k` slots per query; a query may have fewer than `k` neighbours (fewer train
/// descriptors, or an approximate index that examined fewer candidates). Ties keep the lower
/// train index first.
public struct NearestNeighbors: Sendable {
    /// Neighbours requested per query.
    public let k: Int
    /// Slot storage: `matches[k * q ..< k * q + count(q)]` are query q's neighbours.
    public private(set) var matches: [Match]
    /// Neighbours found per query.
    public private(set) var counts: [Int32]
    /// Descriptor distances computed to answer the queries (cost diagnostic; brute force computes
    /// queries × train).
    public var distanceComputations: Int

    /// Room for `queryCount` queries of `k` neighbours, all empty.
    init(k: Int, queryCount: Int) {
        self.k = k
        matches = [Match](repeating: Match(query: -1, train: -1, distance: .infinity), count: k * queryCount)
        counts = [Int32](repeating: 0, count: queryCount)
        distanceComputations = 0
    }

    /// Number of queries.
    public var queryCount: Int { counts.count }

    /// The neighbours of query `q`, nearest first.
    public subscript(q: Int) -> ArraySlice<Match> { matches[(k * q)..<(k * q + Int(counts[q]))] }

    /// The nearest neighbour of query `q`, if any.
    public func nearest(_ q: Int) -> Match? { counts[q] > 0 ? matches[k * q] : nil }

    /// The first `k` neighbours of every query (all of them when `k` ≥ `self.k`): the answer a search
    /// for `k` neighbours gives when the search ranks its candidates the same way for any `k`
    /// (`MultiProbeLSHIndex`, brute force), at no new distance computation.
    public func prefix(_ k: Int) -> NearestNeighbors {
        guard k < self.k else { return self }
        var result = NearestNeighbors(k: k, queryCount: queryCount)
        for q in 0..<queryCount {
            let found = min(k, Int(counts[q]))
            result.counts[q] = Int32(found)
            for i in 0..<found { result.matches[k * q + i] = matches[self.k * q + i] }
        }
        result.distanceComputations = distanceComputations
        return result
    }

    /// Writes query `q`'s neighbours from parallel distance / index buffers of `count` entries.
    mutating func store(
        query q: Int, distances: UnsafePointer<Float>, indices: UnsafePointer<Int32>, count: Int,
        transform: (Float) -> Float
    ) {
        counts[q] = Int32(count)
        for i in 0..<count {
            matches[k * q + i] = Match(query: q, train: Int(indices[i]), distance: transform(distances[i]))
        }
    }
}

extension NearestNeighbors {
    /// The same neighbours with each train index `t` replaced by `trainIndices[t]` (e.g. the map
    /// point of a gathered subset's entry t).
    public func remappingTrain(_ trainIndices: [Int32]) -> NearestNeighbors {
        var out = self
        for i in out.matches.indices where out.matches[i].train >= 0 {
            out.matches[i].train = trainIndices[Int(out.matches[i].train)]
        }
        return out
    }

    /// Each query's nearest neighbour, kept when it is within `maxDistance` and passes Lowe's ratio
    /// test against the second nearest (needs `k` ≥ 2; a query with one neighbour passes).
    ///
    /// This is how matches come out of an approximate index (`BinaryDescriptorIndex`), which has
    /// no mutual check.
    ///
    /// - Parameters:
    ///   - ratio: keep when best < `ratio` × second best; nil skips the test.
    ///   - maxDistance: keep when best ≤ this; nil: no limit.
    /// - Returns: at most one match per query, in query order.
    public func matches(ratio: Float?, maxDistance: Float? = nil) -> [Match] {
        matches(ratio: ratio, maxDistance: maxDistance) { _ in true }
    }

    /// `matches(ratio:maxDistance:)` with an extra acceptance test on the best match.
    func matches(ratio: Float?, maxDistance: Float?, accept: (Match) -> Bool) -> [Match] {
        var out: [Match] = []
        out.reserveCapacity(queryCount / 2)
        for q in 0..<queryCount {
            let found = self[q]
            guard let best = found.first else { continue }
            if let limit = maxDistance, !(best.distance <= limit) { continue }
            if let ratio, found.count >= 2 {
                guard best.distance < ratio * found[found.startIndex + 1].distance else { continue }
            }
            if accept(best) { out.append(best) }
        }
        return out
    }
}
