/// A bounds-checked little-endian reader over bytes; every read past the end throws.
public struct BinaryReader {
    /// The bytes being read.
    public let bytes: [UInt8]
    /// Position of the next read.
    public private(set) var offset = 0

    /// Errors of `BinaryReader`.
    public enum ReadError: Error, Equatable, Sendable {
        /// A read needed `needed` bytes at `offset` but fewer remained.
        case truncated(offset: Int, needed: Int)
        /// A count field exceeds what the remaining bytes could hold.
        case implausibleCount(Int)
    }

    /// A reader at the start of `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Bytes left.
    public var remaining: Int { bytes.count - offset }

    /// True when every byte has been read.
    public var isAtEnd: Bool { offset == bytes.count }

    @inline(__always) mutating func take(_ n: Int) throws(ReadError) -> Int {
        guard n >= 0, n <= remaining else { throw .truncated(offset: offset, needed: n) }
        defer { offset += n }
        return offset
    }

    /// Reads `n` raw bytes.
    public mutating func readBytes(_ n: Int) throws(ReadError) -> ArraySlice<UInt8> {
        let o = try take(n)
        return bytes[o..<o + n]
    }

    /// Reads an unsigned little-endian integer of `T`'s width.
    public mutating func read<T: FixedWidthInteger & UnsignedInteger>(_: T.Type) throws(ReadError) -> T {
        let size = MemoryLayout<T>.size
        let o = try take(size)
        var v: T = 0
        for i in 0..<size { v |= T(bytes[o + i]) << (8 * i) }
        return v
    }

    /// Reads a little-endian `UInt8`.
    public mutating func u8() throws(ReadError) -> UInt8 { try read(UInt8.self) }
    /// Reads a little-endian `UInt32`.
    public mutating func u32() throws(ReadError) -> UInt32 { try read(UInt32.self) }
    /// Reads a little-endian `UInt64`.
    public mutating func u64() throws(ReadError) -> UInt64 { try read(UInt64.self) }
    /// Reads a little-endian `Int32`.
    public mutating func i32() throws(ReadError) -> Int32 { Int32(bitPattern: try read(UInt32.self)) }
    /// Reads a little-endian IEEE-754 double.
    public mutating func f64() throws(ReadError) -> Double { Double(bitPattern: try read(UInt64.self)) }
    /// Reads a little-endian IEEE-754 float.
    public mutating func f32() throws(ReadError) -> Float { Float(bitPattern: try read(UInt32.self)) }

    /// Reads a count and checks that `count × minimumElementSize` bytes could still follow.
    public mutating func count(_ raw: UInt64, minimumElementSize: Int) throws(ReadError) -> Int {
        guard raw <= UInt64(Int.max / max(1, minimumElementSize)), Int(raw) * minimumElementSize <= remaining else {
            throw .implausibleCount(Int(clamping: raw))
        }
        return Int(raw)
    }

    /// Reads a NUL-terminated UTF-8 string.
    public mutating func cString(maxLength: Int = 4096) throws(ReadError) -> String {
        var end = offset
        while end < bytes.count && bytes[end] != 0 && end - offset < maxLength { end += 1 }
        guard end < bytes.count, bytes[end] == 0 else { throw .truncated(offset: offset, needed: end - offset + 1) }
        let s = String(decoding: bytes[offset..<end], as: UTF8.self)
        offset = end + 1
        return s
    }
}

/// A little-endian byte writer, the counterpart of `BinaryReader`.
public struct BinaryWriter {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty writer.
    public init() {}

    /// Reserves capacity.
    public mutating func reserve(_ n: Int) { bytes.reserveCapacity(n) }

    /// Appends an unsigned integer in little-endian order.
    public mutating func write<T: FixedWidthInteger & UnsignedInteger>(_ v: T) {
        for i in 0..<MemoryLayout<T>.size { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
    }

    /// Appends a double.
    public mutating func f64(_ v: Double) { write(v.bitPattern) }
    /// Appends a float.
    public mutating func f32(_ v: Float) { write(v.bitPattern) }
    /// Appends an `Int32`.
    public mutating func i32(_ v: Int32) { write(UInt32(bitPattern: v)) }
    /// Appends raw bytes.
    public mutating func append<S: Sequence>(contentsOf s: S) where S.Element == UInt8 { bytes.append(contentsOf: s) }
    /// Appends a NUL-terminated UTF-8 string.
    public mutating func cString(_ s: String) {
        bytes.append(contentsOf: s.utf8)
        bytes.append(0)
    }
}
