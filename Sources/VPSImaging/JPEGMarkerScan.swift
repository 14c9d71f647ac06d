/// A light, bounds-checked walk over the marker segments of a JPEG stream, from the start-of-image
/// marker up to the first start-of-scan marker.
///
/// It does not validate the stream (libjpeg-turbo does that); it only lets the decoder classify
/// failures (a stream that ends inside its headers is truncated, a frame of zero or huge size is
/// rejected with a precise error) and refuse absurd frame sizes before libjpeg-turbo sees them.
struct JPEGMarkerScan: Sendable {
    /// The first frame header (SOFn segment) found before the first scan, if any.
    var frame: (width: Int, height: Int, components: Int)?
    /// True when a start-of-scan (SOS) segment header was reached and lies entirely inside the data.
    var reachedScan = false
    /// True when the data ended inside the header segments (before a complete SOS segment).
    var endedEarly = false

    /// Walks the segments of `bytes`, which must start with `FF D8`.
    ///
    /// - Parameter bytes: the whole JPEG stream.
    /// - Returns: what was found before the first scan. A malformed segment structure simply stops
    ///   the walk (with `endedEarly == false`), leaving the verdict to libjpeg-turbo.
    /// - Complexity: O(number of header segments); entropy-coded data is never visited.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        let count = bytes.count
        guard count >= 2, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return }
        var index = 2
        while true {
            guard index < count else {
                endedEarly = true
                return
            }
            // Every segment starts with FF, possibly preceded by more FF fill bytes.
            guard bytes[index] == 0xFF else { return }
            while index < count && bytes[index] == 0xFF { index += 1 }
            guard index < count else {
                endedEarly = true
                return
            }
            let marker = bytes[index]
            index += 1
            switch marker {
            case 0x01, 0xD0...0xD8:
                continue  // TEM, RSTn and a repeated SOI carry no length field.
            case 0xD9, 0x00:
                return  // EOI before any scan, or a stuffed zero where a marker belongs.
            default:
                break
            }
            guard index + 2 <= count else {
                endedEarly = true
                return
            }
            let length = Int(bytes[index]) << 8 | Int(bytes[index + 1])
            guard length >= 2 else { return }
            guard index + length <= count else {
                endedEarly = true
                return
            }
            if Self.isStartOfFrame(marker) && frame == nil && length >= 8 {
                let height = Int(bytes[index + 3]) << 8 | Int(bytes[index + 4])
                let width = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                frame = (width, height, Int(bytes[index + 7]))
            }
            if marker == 0xDA {
                reachedScan = true
                return
            }
            index += length
        }
    }

    /// True for the SOF0…SOF15 markers, which exclude DHT (C4), JPG (C8) and DAC (CC).
    static func isStartOfFrame(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }
}
