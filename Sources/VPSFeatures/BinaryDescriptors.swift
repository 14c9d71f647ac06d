/// 256-bit binary descriptors (ORB), stored contiguously as four `UInt64` words each.
///
/// Descriptor `i` is `words[4 * i ..< 4 * i + 4]`. Byte `b` of OpenCV's 32-byte row lands in word
/// `b / 8` at bits `8 * (b % 8) ..< 8 * (b % 8) + 8` (little-endian packing); any fixed packing
/// preserves Hamming distances, this one is also what a little-endian `memcpy` gives.
public struct BinaryDescriptors: Hashable, Sendable {
    /// Bits per descriptor.
    public static let bitCount = 256
    /// `UInt64` words per descriptor.
    public static let wordsPerDescriptor = 4
    /// Bytes per descriptor (OpenCV's row size for ORB).
    public static let bytesPerDescriptor = 32

    /// The packed descriptors, `4 * count` words.
    public private(set) var words: [UInt64]

    /// An empty set.
    public init() { words = [] }

    /// Descriptors over packed words (`words.count` must be a multiple of 4).
    public init(words: [UInt64]) {
        precondition(words.count % Self.wordsPerDescriptor == 0, "binary descriptors take 4 words each")
        self.words = words
    }

    /// Descriptors from OpenCV-style rows of 32 bytes each (`bytes.count` a multiple of 32).
    public init(bytes: [UInt8]) {
        precondition(bytes.count % Self.bytesPerDescriptor == 0, "binary descriptors take 32 bytes each")
        var packed = [UInt64](repeating: 0, count: bytes.count / 8)
        for w in 0..<packed.count {
            var value: UInt64 = 0
            for b in 0..<8 { value |= UInt64(bytes[8 * w + b]) << (8 * UInt64(b)) }
            packed[w] = value
        }
        words = packed
    }

    /// Number of descriptors.
    @inlinable public var count: Int { words.count / Self.wordsPerDescriptor }

    /// True when there are no descriptors.
    @inlinable public var isEmpty: Bool { words.isEmpty }

    /// Descriptor `i` as four words.
    @inlinable public subscript(i: Int) -> SIMD4<UInt64> {
        let base = Self.wordsPerDescriptor * i
        return SIMD4(words[base], words[base + 1], words[base + 2], words[base + 3])
    }

    /// Appends one descriptor.
    public mutating func append(_ descriptor: SIMD4<UInt64>) {
        words.append(descriptor[0])
        words.append(descriptor[1])
        words.append(descriptor[2])
        words.append(descriptor[3])
    }

    /// Appends every descriptor of `other`.
    public mutating func append(contentsOf other: BinaryDescriptors) { words.append(contentsOf: other.words) }

    /// Reserves room for `count` descriptors.
    public mutating func reserveCapacity(_ count: Int) { words.reserveCapacity(Self.wordsPerDescriptor * count) }

    /// The descriptors at `indices`, in that order.
    public func subset(_ indices: some Sequence<Int>) -> BinaryDescriptors {
        var out: [UInt64] = []
        for i in indices { out.append(contentsOf: words[(4 * i)..<(4 * i + 4)]) }
        return BinaryDescriptors(words: out)
    }

    /// The Hamming distance (number of differing bits) between two descriptors.
    @inlinable public static func distance(_ a: SIMD4<UInt64>, _ b: SIMD4<UInt64>) -> Int {
        (a[0] ^ b[0]).nonzeroBitCount + (a[1] ^ b[1]).nonzeroBitCount + (a[2] ^ b[2]).nonzeroBitCount
            + (a[3] ^ b[3]).nonzeroBitCount
    }
}
