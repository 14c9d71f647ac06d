/// Portable float map (PFM) reading and writing: one channel (`Pf`) or three (`PF`) of 32-bit floats.
///
/// Header: the magic line, `width height`, then a scale whose sign gives the byte order (negative:
/// little-endian); rows follow bottom to top. The API's values are row-major top row first, like the
/// other images of this module. Used for depth maps (metres) and disparities.
public enum PFM {
    /// Decodes a PFM file.
    ///
    /// - Parameter data: the file's bytes.
    /// - Returns: size, channel count (1 or 3) and `width · height · channels` values, top row first.
    /// - Throws: `ImagingError.invalidArgument` for a malformed header or short data,
    ///   `.invalidImageSize` for a zero side, `.imageTooLarge` beyond `maxSide`.
    public static func decode(
        _ data: [UInt8], maxSide: Int = 16384
    ) throws(ImagingError) -> (
        width: Int, height: Int, channels: Int, values: [Float]
    ) {
        guard !data.isEmpty else { throw .emptyImageData }
        // Three whitespace-separated header fields after the magic, then exactly one whitespace byte.
        var tokens: [String] = []
        var i = 0
        while tokens.count < 4 {
            while i < data.count, data[i] == 0x20 || data[i] == 0x0A || data[i] == 0x0D || data[i] == 0x09 { i += 1 }
            var token: [UInt8] = []
            while i < data.count, !(data[i] == 0x20 || data[i] == 0x0A || data[i] == 0x0D || data[i] == 0x09) {
                token.append(data[i])
                i += 1
                guard token.count <= 32 else { throw .invalidArgument("PFM header field too long") }
            }
            guard !token.isEmpty else { throw .invalidArgument("PFM header is incomplete") }
            tokens.append(String(decoding: token, as: UTF8.self))
        }
        i += 1
        let channels: Int
        switch tokens[0] {
        case "Pf": channels = 1
        case "PF": channels = 3
        default: throw .invalidArgument("not a PFM file (magic \(tokens[0]))")
        }
        guard let width = Int(tokens[1]), let height = Int(tokens[2]), let scale = Double(tokens[3]), scale != 0
        else { throw .invalidArgument("PFM header '\(tokens[1...3].joined(separator: " "))' is malformed") }
        guard width > 0, height > 0 else { throw .invalidImageSize(width: width, height: height) }
        guard width <= maxSide, height <= maxSide else {
            throw .imageTooLarge(width: width, height: height, limit: maxSide)
        }
        let count = width * height * channels
        guard data.count - i >= 4 * count else {
            throw .invalidArgument("PFM data holds \(max(0, data.count - i)) bytes, expected \(4 * count)")
        }
        let littleEndian = scale < 0
        var values = [Float](repeating: 0, count: count)
        let row = width * channels
        for y in 0..<height {
            // Stored bottom row first.
            let source = i + 4 * (height - 1 - y) * row
            for k in 0..<row {
                let o = source + 4 * k
                let b = (UInt32(data[o]), UInt32(data[o + 1]), UInt32(data[o + 2]), UInt32(data[o + 3]))
                let bits =
                    littleEndian ? b.0 | b.1 << 8 | b.2 << 16 | b.3 << 24 : b.3 | b.2 << 8 | b.1 << 16 | b.0 << 24
                values[y * row + k] = Float(bitPattern: bits)
            }
        }
        return (width, height, channels, values)
    }

    /// Encodes values (top row first) as a little-endian PFM.
    ///
    /// - Precondition: `values.count == width · height · channels`, channels 1 or 3.
    public static func encode(width: Int, height: Int, channels: Int = 1, values: [Float]) -> [UInt8] {
        precondition(channels == 1 || channels == 3, "PFM has 1 or 3 channels")
        precondition(width > 0 && height > 0 && values.count == width * height * channels, "PFM size mismatch")
        var out = Array("\(channels == 1 ? "Pf" : "PF")\n\(width) \(height)\n-1.0\n".utf8)
        out.reserveCapacity(out.count + 4 * values.count)
        let row = width * channels
        for y in (0..<height).reversed() {
            for v in values[(y * row)..<((y + 1) * row)] {
                let bits = v.bitPattern
                for b in 0..<4 { out.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt32(b)))) }
            }
        }
        return out
    }

    /// Reads and decodes a PFM file (see `decode`).
    ///
    /// - Throws: `ImagingError.io` when the file cannot be read, otherwise as `decode`.
    public static func read(
        fromFile path: String, maxSide: Int = 16384
    ) throws(ImagingError) -> (
        width: Int, height: Int, channels: Int, values: [Float]
    ) {
        try decode(try ImageFile.read(path), maxSide: maxSide)
    }

    /// Writes a little-endian PFM file (atomically).
    public static func write(
        width: Int, height: Int, channels: Int = 1, values: [Float], toFile path: String
    ) throws(ImagingError) {
        try ImageFile.write(encode(width: width, height: height, channels: channels, values: values), to: path)
    }
}
