/// Writes the entropy-coded segment: bits most significant first, a zero byte stuffed after every
/// 0xFF (ITU-T T.81 §B.1.1.5), padded with one-bits at the end.
struct JPEGBitWriter {
    private(set) var bytes: [UInt8]
    private var accumulator: UInt64 = 0
    private var count = 0

    /// A writer appending to `bytes`, with room reserved for `capacity` more.
    init(bytes: [UInt8], capacity: Int = 0) {
        self.bytes = bytes
        self.bytes.reserveCapacity(bytes.count + capacity)
    }

    /// Appends the low `length` bits of `value` (length ≤ 32).
    @inline(__always)
    mutating func write(_ value: UInt32, length: Int) {
        guard length > 0 else { return }
        accumulator = (accumulator << UInt64(length)) | UInt64(value & UInt32(truncatingIfNeeded: (1 << length) - 1))
        count += length
        while count >= 8 {
            count -= 8
            let byte = UInt8(truncatingIfNeeded: accumulator >> UInt64(count))
            bytes.append(byte)
            if byte == 0xFF { bytes.append(0) }
        }
        accumulator &= (1 << UInt64(count)) - 1
    }

    /// Pads the last byte and appends a restart marker (never stuffed).
    mutating func restart(marker: UInt8) {
        flush()
        bytes += [0xFF, marker]
    }

    /// Pads the last byte with one-bits.
    mutating func flush() {
        if count > 0 { write(UInt32((1 << (8 - count)) - 1), length: 8 - count) }
    }
}
