/// Which nearest-neighbour pairs `BruteForceMatcher.match` keeps.
///
/// Tests apply in this order: the nearest neighbour must be within `maxDistance`, pass Lowe's ratio
/// test against the second nearest (Lowe, IJCV 2004, §7.1), and, with `mutual`, be a mutual
/// nearest neighbour (the query is also the train descriptor's nearest; a cross check), and, with
/// `symmetricRatio`, pass the ratio test in the other direction too (the train descriptor's
/// nearest query against its second nearest).
public struct MatchCriteria: Hashable, Sendable {
    /// Keep a match only when best < `ratio` × second best (distances, not squared); nil skips the
    /// test. A query with a single train candidate passes.
    public var ratio: Float?
    /// Keep a match only when it is the nearest in both directions.
    public var mutual: Bool
    /// With `mutual` and `ratio`, keep a match only when the train descriptor, too, has no second
    /// query within `ratio` of the first: a keypoint of the second image that looks like two of the
    /// first (a window of a façade's row) is ambiguous whichever side it is looked up from. Between
    /// two photographs of a repetitive façade the one-way test with a cross check keeps such pairs;
    /// the two-way test drops them (docs/EVALUATION.md).
    public var symmetricRatio: Bool
    /// Keep a match only when its distance is ≤ this (Hamming bits, or L2 units); nil: no limit.
    public var maxDistance: Float?

    /// Criteria; the default is the ratio test at 0.8 alone.
    public init(ratio: Float? = 0.8, mutual: Bool = false, symmetricRatio: Bool = false, maxDistance: Float? = nil) {
        self.ratio = ratio
        self.mutual = mutual
        self.symmetricRatio = symmetricRatio
        self.maxDistance = maxDistance
    }
}
