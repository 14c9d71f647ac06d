import VPSFeatures

/// Descriptors as the localizer compares them: binary (ORB: Hamming distance in bits) or float
/// (SIFT, RootSIFT: unit-normalized, Euclidean distance), with the distance limits of each family.
///
/// Float descriptors are scaled to unit L2 norm on the way in (OpenCV's SIFT comes at norm ≈ 512,
/// RootSIFT at 1), so one set of limits holds for both.
enum LocalDescriptors: Sendable {
    case binary(BinaryDescriptors)
    case float(FloatDescriptors)

    /// The localizer's form of extracted or stored descriptors.
    init(_ descriptors: FeatureDescriptors) {
        switch descriptors {
        case .binary(let b): self = .binary(b)
        case .float(let f): self = .float(Self.unitNormalized(f))
        }
    }

    /// Number of descriptors.
    var count: Int {
        switch self {
        case .binary(let b): b.count
        case .float(let f): f.count
        }
    }

    /// True for float (SIFT) descriptors.
    var isFloat: Bool {
        if case .float = self { return true }
        return false
    }

    /// The distance limits of this family.
    var limits: DescriptorLimits {
        switch self {
        case .binary: .binary
        case .float: .float
        }
    }

    /// The descriptors at `indices`, in that order.
    func subset(_ indices: [Int32]) -> LocalDescriptors {
        switch self {
        case .binary(let b):
            var words: [UInt64] = []
            words.reserveCapacity(4 * indices.count)
            for i in indices { words += b.words[(4 * Int(i))..<(4 * Int(i) + 4)] }
            return .binary(BinaryDescriptors(words: words))
        case .float(let f):
            return .float(f.subset(indices.lazy.map { Int($0) }))
        }
    }

    /// Descriptors stored as a map stores them (`MapData.pointDescriptors`, `Keyframe.descriptors`):
    /// 32 bytes per ORB descriptor, or little-endian float32 values for float families.
    init(bytes: [UInt8], float: Bool) {
        self =
            float
            ? .float(Self.unitNormalized(LocalizationMap.floats(bytes))) : .binary(BinaryDescriptors(bytes: bytes))
    }

    /// `self` followed by `other` (same family).
    func appending(_ other: LocalDescriptors) -> LocalDescriptors {
        switch (self, other) {
        case (.binary(let a), .binary(let b)):
            return .binary(BinaryDescriptors(words: a.words + b.words))
        case (.float(let a), .float(let b)):
            return .float(FloatDescriptors(values: a.values + b.values, dimension: a.dimension))
        default:
            preconditionFailure("descriptors of different families")
        }
    }

    /// The two nearest descriptors of `self` for each of `queries` (same family), exactly, nearest
    /// first; train indices are mapped through `trainIndices` when given.
    ///
    /// - Parameter distinct: the second nearest has another train index than the nearest (several
    ///   descriptors of one map point: the ratio test then compares two distinct points).
    /// - Complexity: O(queries × count) distances (the `CHammingKernels` and `CFloatKernels` kernels).
    func nearestTwo(
        of queries: LocalDescriptors, trainIndices: [Int32]? = nil, distinct: Bool = false
    )
        -> NearestNeighbors
    {
        switch (queries, self) {
        case (.binary(let q), .binary(let t)):
            return HammingNearestTwo.nearest(q, in: t, trainIndices: trainIndices, distinctTrainIndices: distinct)
        case (.float(let q), .float(let t)):
            return FloatNearestTwo.nearest(q, in: t, trainIndices: trainIndices, distinctTrainIndices: distinct)
        default:
            preconditionFailure("query and map descriptors of different families")
        }
    }

    /// Distance between descriptor `i` here and descriptor `j` of `other` (same family): bits or
    /// unit Euclidean.
    @inline(__always) func distance(_ i: Int, to other: LocalDescriptors, _ j: Int) -> Float {
        switch (self, other) {
        case (.binary(let a), .binary(let b)):
            return Float(BinaryDescriptors.distance(a[i], b[j]))
        case (.float(let a), .float(let b)):
            return a.squaredDistance(i, to: b, j).squareRoot()
        default:
            preconditionFailure("descriptors of different families")
        }
    }

    /// `f` with every descriptor scaled to unit L2 norm (zero descriptors stay zero).
    static func unitNormalized(_ f: FloatDescriptors) -> FloatDescriptors {
        var values = f.values
        let n = f.dimension
        for start in stride(from: 0, to: values.count, by: n) {
            var sum: Float = 0
            for i in start..<(start + n) { sum += values[i] * values[i] }
            guard sum > 0 else { continue }
            let s = 1 / sum.squareRoot()
            for i in start..<(start + n) { values[i] *= s }
        }
        return FloatDescriptors(values: values, dimension: n)
    }
}

/// Distance limits of one descriptor family, in its own unit.
struct DescriptorLimits: Sendable {
    /// A neighbour farther than this is no plausible match (competitor candidates, twin probes).
    var plausible: Float
    /// Verification by projection accepts a point within its window up to this distance.
    var projection: Float
    /// Retrieval votes come from neighbours whose retrieval codes are within this many bits.
    var voteBits: Float
    /// Largest ratio between the distances a point can be matched at (query versus the keyframes
    /// that saw it): the span of the detector's scale space.
    var scaleRange: Double

    /// ORB: of 256 bits, true matches differ by 20–50, unrelated descriptors by ~128; 8 pyramid
    /// levels 1.2 apart span 1.2⁷ ≈ 3.6 (ORB-SLAM's search by projection bounds depth the same way).
    static let binary = DescriptorLimits(plausible: 80, projection: 80, voteBits: 64, scaleRange: 4)
    /// Unit SIFT / RootSIFT: true matches lie within ~0.5, unrelated descriptors near 1; the codes
    /// (`SignProjectionHash`) of a true match differ by ~50 of 256 bits, unrelated ones by ~128;
    /// octaves span more scale than ORB's pyramid.
    static let float = DescriptorLimits(plausible: 0.75, projection: 0.75, voteBits: 80, scaleRange: 8)
}
