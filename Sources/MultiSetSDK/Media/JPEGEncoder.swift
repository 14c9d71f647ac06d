import Foundation

/// A baseline JPEG encoder in pure Swift (ITU-T T.81 sequential DCT, 8-bit, Huffman coding; JFIF
/// file): what the SDK sends when it has to re-encode a frame and no platform codec is injected.
///
/// Colour is converted to YCbCr with the JFIF (full-range BT.601) coefficients, chroma optionally
/// averaged over 2×2 pixels (4:2:0), each 8×8 block transformed with an exact float DCT and quantized
/// with the Annex K tables scaled by `quality`, and the coefficients coded with Huffman tables built
/// for the image (Annex K.2), so no fixed table is needed and files come out smaller than with the
/// example tables. Any decoder of baseline JPEG reads the result.
///
/// - Complexity: O(width × height); one pass over the pixels, two over the quantized coefficients.
public struct JPEGEncoder: Sendable {
    /// How chroma is sampled.
    public enum ChromaSampling: Sendable, Equatable {
        /// 4:4:4: chroma at full resolution.
        case full
        /// 4:2:0: chroma averaged over 2×2 pixels (the usual camera JPEG; about a third smaller).
        case halved
    }

    /// 1–100 (clamped); 50 uses the Annex K tables as printed, 100 quantizes every coefficient by 1.
    public var quality: Int
    /// Chroma sampling.
    public var chromaSampling: ChromaSampling
    /// MCUs between restart markers (0: none). Restarts let a decoder resynchronize after a damaged
    /// byte, at a few bytes per interval.
    public var restartInterval = 0

    /// An encoder.
    ///
    /// - Parameters:
    ///   - quality: 1–100.
    ///   - chromaSampling: nil picks full chroma from quality 90 up and halved chroma below (the
    ///     engine's libjpeg-turbo default): at 90 halving chroma alone costs about 4 dB on textured
    ///     colour scenes.
    public init(quality: Int = 90, chromaSampling: ChromaSampling? = nil) {
        self.quality = quality
        self.chromaSampling = chromaSampling ?? (quality >= 90 ? .full : .halved)
    }

    /// Encodes packed 8-bit RGB (3 bytes a pixel, row-major, no row padding).
    ///
    /// - Returns: the JPEG file, or nil when the size is not positive, exceeds 65,535 on a side, or
    ///   `rgb` is shorter than `width × height × 3`.
    public func encode(rgb: Data, width: Int, height: Int) -> Data? {
        rgb.withUnsafeBytes { encode(rgb: $0, width: width, height: height, rowBytes: width * 3) }.map { Data($0) }
    }

    /// Encodes packed 8-bit RGB rows `rowBytes` apart.
    ///
    /// - Returns: the JPEG bytes, or nil for an invalid size or a short buffer.
    public func encode(rgb: UnsafeRawBufferPointer, width: Int, height: Int, rowBytes: Int) -> [UInt8]? {
        guard width > 0, height > 0, width <= 65_535, height <= 65_535, rowBytes >= width * 3,
            rgb.count >= (height - 1) * rowBytes + width * 3
        else { return nil }
        let halved = chromaSampling == .halved
        let planes = YCbCrPlanes(rgb: rgb, width: width, height: height, rowBytes: rowBytes, halvedChroma: halved)
        let lumaQ = JPEGTables.scaled(JPEGTables.luminance, quality: quality)
        let chromaQ = JPEGTables.scaled(JPEGTables.chrominance, quality: quality)
        let blocks = JPEGBlocks(planes: planes, halvedChroma: halved, lumaQuant: lumaQ, chromaQuant: chromaQ)

        let interval = max(0, min(restartInterval, 65_535))
        let frequencies = blocks.symbolFrequencies(restartInterval: interval)
        // Table classes: 0 = luma DC, 1 = luma AC, 2 = chroma DC, 3 = chroma AC.
        let tables = frequencies.map { freq -> JPEGHuffmanTable in
            JPEGHuffmanTable(
                frequencies: freq.contains(where: { $0 > 0 }) ? freq : [1] + [Int](repeating: 0, count: 255))
        }

        var header = JPEGHeader(width: width, height: height, halvedChroma: halved)
        header.quantization(luma: lumaQ, chroma: chromaQ)
        header.huffman(tables)
        if interval > 0 { header.restartInterval(interval) }
        header.startOfScan()
        var writer = JPEGBitWriter(bytes: header.bytes, capacity: width * height / 2)
        blocks.encode(tables: tables, restartInterval: interval, into: &writer)
        writer.flush()
        var out = writer.bytes
        out += [0xFF, 0xD9]
        return out
    }
}
