/// A correspondence between a query descriptor and a train descriptor.
///
/// Indices are `Int32` to keep the struct at 12 bytes (maps hold up to millions of descriptors).
public struct Match: Hashable, Sendable {
    /// Index of the query descriptor (e.g. in the query image's `FeatureSet`).
    public var query: Int32
    /// Index of the train descriptor (e.g. in the map or the other image).
    public var train: Int32
    /// Descriptor distance: Hamming bits for binary descriptors, Euclidean for float ones.
    public var distance: Float

    /// A match between `query` and `train` at `distance`.
    public init(query: Int, train: Int, distance: Float) {
        self.query = Int32(truncatingIfNeeded: query)
        self.train = Int32(truncatingIfNeeded: train)
        self.distance = distance
    }

    /// The match with query and train swapped.
    public var swapped: Match { Match(query: Int(train), train: Int(query), distance: distance) }
}
