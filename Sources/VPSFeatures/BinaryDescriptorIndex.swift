/// A searchable set of binary descriptors: the "top-k nearest among N" query the localizer needs.
///
/// The localizer matches a query image's ~2000 descriptors against a map's 100k–1M, asking for
/// the two nearest of each (ratio test: `NearestNeighbors.matches(ratio:)`), or for more when it
/// keeps several candidate 3D points per feature. An index answers that query, exactly (brute
/// force) or approximately (`MultiProbeLSHIndex`); `IndexEvaluation` measures how often an
/// approximate answer's nearest is the true one (recall@1) and how much faster it is.
///
/// Implementations are immutable once built and safe to search from several threads at once.
public protocol BinaryDescriptorIndex: Sendable {
    /// The indexed descriptors; neighbours' `train` fields index into them.
    var descriptors: BinaryDescriptors { get }

    /// The (approximate) `k` nearest indexed descriptors of each query, nearest first.
    ///
    /// - Parameters:
    ///   - queries: query descriptors.
    ///   - k: neighbours per query, ≥ 1; a query may get fewer.
    /// - Returns: neighbours with Hamming distances and the number of distances computed.
    func nearest(_ queries: BinaryDescriptors, k: Int) -> NearestNeighbors
}
