/// Reads the entropy-coded segment of a scan: bits most significant first, stuffed zero bytes
/// removed, and zeros past a marker (ITU-T T.81 §F.2.2.5).
struct JPEGBitReader {
    private let bytes: [UInt8]
    private(set) var position: Int
    private var accumulator: UInt64 = 0
    private var count = 0
    /// A marker (0xFF then non-zero) was reached; its position.
    private(set) var markerPosition: Int?

    init(bytes: [UInt8], position: Int) {
        self.bytes = bytes
        self.position = position
    }

    private mutating func fill() {
        while count <= 56 {
            var byte: UInt8 = 0
            if markerPosition == nil, position < bytes.count {
                byte = bytes[position]
                if byte == 0xFF {
                    let next = position + 1 < bytes.count ? bytes[position + 1] : 0xD9
                    if next == 0 {
                        position += 2
                    } else {
                        markerPosition = position
                        byte = 0
                    }
                } else {
                    position += 1
                }
            }
            accumulator |= UInt64(byte) << UInt64(56 - count)
            count += 8
        }
    }

    /// The next `n` bits without consuming them (n ≤ 16).
    mutating func peek(_ n: Int) -> Int {
        if count < n { fill() }
        return Int(accumulator >> UInt64(64 - n))
    }

    /// Consumes `n` bits.
    mutating func skip(_ n: Int) {
        accumulator <<= UInt64(n)
        count -= n
    }

    /// Reads `n` bits (n ≤ 16) as an unsigned value.
    mutating func bits(_ n: Int) -> Int {
        guard n > 0 else { return 0 }
        let v = peek(n)
        skip(n)
        return v
    }

    /// Reads `n` bits and extends them to a signed value (T.81 Figure F.12, EXTEND).
    mutating func signed(_ n: Int) -> Int {
        guard n > 0 else { return 0 }
        let v = bits(n)
        return v < 1 << (n - 1) ? v - (1 << n) + 1 : v
    }

    /// Drops buffered bits and moves past the restart marker expected next; false when absent.
    mutating func restart() -> Bool {
        accumulator = 0
        count = 0
        if let m = markerPosition {
            position = m
            markerPosition = nil
        }
        while position + 1 < bytes.count, bytes[position] == 0xFF, bytes[position + 1] == 0xFF { position += 1 }
        guard position + 1 < bytes.count, bytes[position] == 0xFF, (0xD0...0xD7).contains(bytes[position + 1])
        else { return false }
        position += 2
        return true
    }

    /// Where the data after the scan starts (its terminating marker).
    mutating func endOfScan() -> Int {
        if let m = markerPosition { return m }
        var p = position
        while p + 1 < bytes.count, !(bytes[p] == 0xFF && bytes[p + 1] != 0) { p += 1 }
        return p
    }
}

/// A decoding table (T.81 §F.2.2.3): a 9-bit lookup for short codes and MAXCODE/VALPTR for the rest.
struct JPEGHuffmanDecoder {
    private var fast = [Int16](repeating: -1, count: 512)
    private var maxCode = [Int](repeating: -1, count: 18)
    private var valueOffset = [Int](repeating: 0, count: 17)
    private var values: [UInt8]

    /// Builds the table from a DHT's 16 counts and its values; nil when the counts overflow.
    init?(counts: [UInt8], values: [UInt8]) {
        guard counts.count == 16, counts.reduce(0, { $0 + Int($1) }) == values.count else { return nil }
        self.values = values
        var code = 0
        var k = 0
        for length in 1...16 {
            let n = Int(counts[length - 1])
            valueOffset[length] = k - code
            if n > 0 {
                for i in 0..<n where length <= 9 {
                    let c = code + i
                    let shift = 9 - length
                    for fill in 0..<(1 << shift) { fast[(c << shift) | fill] = Int16(length << 8 | Int(values[k + i])) }
                }
                code += n
                k += n
                maxCode[length] = code - 1
            }
            guard code <= 1 << length else { return nil }
            code <<= 1
        }
        maxCode[17] = Int.max
    }

    /// Decodes one symbol; nil for a code that is not in the table.
    func decode(_ reader: inout JPEGBitReader) -> UInt8? {
        let entry = fast[reader.peek(9)]
        if entry >= 0 {
            reader.skip(Int(entry >> 8))
            return UInt8(entry & 0xFF)
        }
        var code = reader.bits(9)
        for length in 10...16 {
            code = code << 1 | reader.bits(1)
            if code <= maxCode[length] {
                let index = code + valueOffset[length]
                return values.indices.contains(index) ? values[index] : nil
            }
        }
        return nil
    }
}
