/// Real-valued descriptors (SIFT: 128 floats each), stored contiguously.
///
/// Descriptor `i` is `values[dimension * i ..< dimension * (i + 1)]`. OpenCV's SIFT descriptors
/// are L2-normalized, clipped at 0.2, renormalized and scaled by 512 (Lowe 2004, §6.1), so
/// components lie in [0, 255] and distances are in those units.
public struct FloatDescriptors: Hashable, Sendable {
    /// SIFT's descriptor length.
    public static let siftDimension = 128

    /// Floats per descriptor (a positive multiple of 16, the SIMD width the matcher uses).
    public let dimension: Int
    /// The packed descriptors, `dimension * count` floats.
    public private(set) var values: [Float]

    /// An empty set of `dimension`-float descriptors.
    public init(dimension: Int = FloatDescriptors.siftDimension) {
        precondition(dimension > 0 && dimension % 16 == 0, "descriptor dimension must be a positive multiple of 16")
        self.dimension = dimension
        values = []
    }

    /// Descriptors over packed values (`values.count` a multiple of `dimension`).
    public init(values: [Float], dimension: Int = FloatDescriptors.siftDimension) {
        precondition(dimension > 0 && dimension % 16 == 0, "descriptor dimension must be a positive multiple of 16")
        precondition(values.count % dimension == 0, "value count must be a multiple of the dimension")
        self.dimension = dimension
        self.values = values
    }

    /// Number of descriptors.
    @inlinable public var count: Int { values.count / dimension }

    /// True when there are no descriptors.
    @inlinable public var isEmpty: Bool { values.isEmpty }

    /// Descriptor `i`.
    @inlinable public subscript(i: Int) -> ArraySlice<Float> { values[(dimension * i)..<(dimension * (i + 1))] }

    /// Appends one descriptor (`descriptor.count == dimension`).
    public mutating func append(_ descriptor: some Collection<Float>) {
        precondition(descriptor.count == dimension, "descriptor length must equal the dimension")
        values.append(contentsOf: descriptor)
    }

    /// Appends every descriptor of `other` (same dimension).
    public mutating func append(contentsOf other: FloatDescriptors) {
        precondition(other.dimension == dimension, "descriptor dimensions differ")
        values.append(contentsOf: other.values)
    }

    /// The descriptors at `indices`, in that order.
    public func subset(_ indices: some Sequence<Int>) -> FloatDescriptors {
        var out: [Float] = []
        for i in indices { out.append(contentsOf: self[i]) }
        return FloatDescriptors(values: out, dimension: dimension)
    }

    /// The squared Euclidean distance between descriptor `i` here and descriptor `j` of `other`.
    public func squaredDistance(_ i: Int, to other: FloatDescriptors, _ j: Int) -> Float {
        precondition(other.dimension == dimension, "descriptor dimensions differ")
        var sum: Float = 0
        let a = dimension * i, b = dimension * j
        for d in 0..<dimension {
            let diff = values[a + d] - other.values[b + d]
            sum += diff * diff
        }
        return sum
    }
}
