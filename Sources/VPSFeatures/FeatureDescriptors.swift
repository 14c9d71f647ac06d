/// The descriptors of a feature set: binary (ORB) or float (SIFT).
public enum FeatureDescriptors: Hashable, Sendable {
    /// 256-bit descriptors compared by Hamming distance.
    case binary(BinaryDescriptors)
    /// Float descriptors compared by Euclidean (L2) distance.
    case float(FloatDescriptors)

    /// The two descriptor families.
    public enum Kind: String, Hashable, Sendable {
        /// 256-bit binary (ORB), Hamming distance.
        case binary256
        /// 128-float (SIFT), L2 distance.
        case float128
    }

    /// Which family these are.
    public var kind: Kind {
        switch self {
        case .binary: .binary256
        case .float: .float128
        }
    }

    /// Number of descriptors.
    public var count: Int {
        switch self {
        case .binary(let d): d.count
        case .float(let d): d.count
        }
    }

    /// The binary descriptors, or nil for float ones.
    public var binary: BinaryDescriptors? {
        if case .binary(let d) = self { return d }
        return nil
    }

    /// The float descriptors, or nil for binary ones.
    public var float: FloatDescriptors? {
        if case .float(let d) = self { return d }
        return nil
    }
}
