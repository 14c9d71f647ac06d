import CTurboJPEG
import Foundation

/// JPEG decoding and encoding through libjpeg-turbo's TurboJPEG API.
///
/// Decoding is defensive: the header is read first, images with a zero side or a side above
/// `maxSide` are rejected before any pixel buffer is allocated, libjpeg-turbo warnings are reported
/// as errors instead of returning a partially decoded image (data that ends early, including a
/// stream cut inside its headers, is `TRUNCATED_JPEG`; other warnings such as a bad Huffman code
/// are `CORRUPT_JPEG`), and progressive streams are limited to 500 scans. No input makes these
/// functions crash or read outside the given buffer.
///
/// Every call creates and destroys its own TurboJPEG handle, so all functions are safe to call
/// concurrently from any thread.
public enum JPEG {
    /// The largest side libjpeg-turbo accepts (`JPEG_MAX_DIMENSION`).
    public static let maximumSupportedSide = 65500

    /// How the encoder subsamples the two chroma channels of a colour image (J:a:b notation).
    public enum ChromaSubsampling: Sendable, CaseIterable {
        /// 4:4:4, full chroma resolution: best colour fidelity, largest files.
        case chroma444
        /// 4:2:2, half horizontal chroma resolution.
        case chroma422
        /// 4:2:0, half horizontal and vertical chroma resolution: the usual camera setting.
        case chroma420

        var turboJPEGValue: Int32 {
            switch self {
            case .chroma444: Int32(TJSAMP_444.rawValue)
            case .chroma422: Int32(TJSAMP_422.rawValue)
            case .chroma420: Int32(TJSAMP_420.rawValue)
            }
        }
    }

    // MARK: Decoding

    /// Decodes a JPEG into an RGB image (grayscale JPEGs are expanded to three equal channels).
    ///
    /// - Parameters:
    ///   - data: the complete JPEG file.
    ///   - maxSide: the largest accepted width or height in pixels (at least 1); larger images are
    ///     rejected after reading the header, before allocating.
    /// - Returns: the decoded image at full resolution.
    /// - Throws: `ImagingError` — `EMPTY_IMAGE_DATA`, `NOT_A_JPEG`, `INVALID_IMAGE_SIZE`,
    ///   `IMAGE_TOO_LARGE`, `TRUNCATED_JPEG`, `CORRUPT_JPEG`, `UNSUPPORTED_JPEG` (CMYK) or
    ///   `INVALID_ARGUMENT` (`maxSide < 1`).
    /// - Complexity: O(`data.count` + width × height).
    public static func decodeRGB(_ data: [UInt8], maxSide: Int = 8192) throws(ImagingError) -> RGBImage {
        let decoded = try decompress(data, maxSide: maxSide, channels: 3)
        return RGBImage(width: decoded.width, height: decoded.height, pixels: decoded.pixels)
    }

    /// Decodes a JPEG into a grayscale image (colour JPEGs are reduced to their luma channel).
    ///
    /// - Parameters:
    ///   - data: the complete JPEG file.
    ///   - maxSide: the largest accepted width or height in pixels (at least 1).
    /// - Returns: the decoded image at full resolution.
    /// - Throws: `ImagingError`, as `decodeRGB(_:maxSide:)`.
    /// - Complexity: O(`data.count` + width × height).
    public static func decodeGray(_ data: [UInt8], maxSide: Int = 8192) throws(ImagingError) -> GrayImage {
        let decoded = try decompress(data, maxSide: maxSide, channels: 1)
        return GrayImage(width: decoded.width, height: decoded.height, pixels: decoded.pixels)
    }

    /// Decodes a JPEG held in `Data` into an RGB image; see `decodeRGB(_:maxSide:)`.
    ///
    /// - Parameters:
    ///   - data: the complete JPEG file.
    ///   - maxSide: the largest accepted width or height in pixels.
    /// - Returns: the decoded image.
    /// - Throws: `ImagingError`, as `decodeRGB(_:maxSide:)`.
    public static func decodeRGB(_ data: Data, maxSide: Int = 8192) throws(ImagingError) -> RGBImage {
        try decodeRGB([UInt8](data), maxSide: maxSide)
    }

    /// Decodes a JPEG held in `Data` into a grayscale image; see `decodeGray(_:maxSide:)`.
    ///
    /// - Parameters:
    ///   - data: the complete JPEG file.
    ///   - maxSide: the largest accepted width or height in pixels.
    /// - Returns: the decoded image.
    /// - Throws: `ImagingError`, as `decodeRGB(_:maxSide:)`.
    public static func decodeGray(_ data: Data, maxSide: Int = 8192) throws(ImagingError) -> GrayImage {
        try decodeGray([UInt8](data), maxSide: maxSide)
    }

    /// Reads and decodes a JPEG file into an RGB image.
    ///
    /// - Parameters:
    ///   - path: the file to read.
    ///   - maxSide: the largest accepted width or height in pixels.
    /// - Returns: the decoded image.
    /// - Throws: `ImagingError.io` when the file cannot be read, otherwise as `decodeRGB(_:maxSide:)`.
    public static func readRGB(fromFile path: String, maxSide: Int = 8192) throws(ImagingError) -> RGBImage {
        try decodeRGB(try ImageFile.read(path), maxSide: maxSide)
    }

    /// Reads and decodes a JPEG file into a grayscale image.
    ///
    /// - Parameters:
    ///   - path: the file to read.
    ///   - maxSide: the largest accepted width or height in pixels.
    /// - Returns: the decoded image.
    /// - Throws: `ImagingError.io` when the file cannot be read, otherwise as `decodeGray(_:maxSide:)`.
    public static func readGray(fromFile path: String, maxSide: Int = 8192) throws(ImagingError) -> GrayImage {
        try decodeGray(try ImageFile.read(path), maxSide: maxSide)
    }

    /// The pixel size stored in a JPEG's frame header, without decoding the image.
    ///
    /// - Parameter data: the JPEG file (only the headers up to the first scan are needed).
    /// - Returns: width and height in pixels.
    /// - Throws: `ImagingError` — `EMPTY_IMAGE_DATA`, `NOT_A_JPEG`, `INVALID_IMAGE_SIZE`,
    ///   `IMAGE_TOO_LARGE` (sides above `maximumSupportedSide`), `TRUNCATED_JPEG` or `CORRUPT_JPEG`.
    /// - Complexity: O(size of the header segments).
    public static func size(of data: [UInt8]) throws(ImagingError) -> (width: Int, height: Int) {
        let header = try readHeader(data, maxSide: maximumSupportedSide)
        return (header.width, header.height)
    }

    // MARK: Encoding

    /// Encodes an RGB image as a baseline JPEG.
    ///
    /// Chroma is kept at full resolution (4:4:4) for `quality` ≥ 90 and halved in both directions
    /// (4:2:0, the usual camera setting) below: at high quality settings chroma subsampling would
    /// otherwise dominate the error (on a textured test image at quality 90: 40 dB PSNR with
    /// 4:4:4, 33 dB with 4:2:0). Use `encode(_:quality:chromaSubsampling:)` to choose explicitly.
    ///
    /// - Parameters:
    ///   - image: the image; both sides must be in 1...`maximumSupportedSide`.
    ///   - quality: libjpeg quality, 1 (smallest) ... 100 (best).
    /// - Returns: the JPEG file bytes.
    /// - Throws: `ImagingError` — `INVALID_IMAGE_SIZE`, `IMAGE_TOO_LARGE`, `INVALID_ARGUMENT`
    ///   (quality outside 1...100) or `ENCODE_FAILED`.
    /// - Complexity: O(width × height).
    public static func encode(_ image: RGBImage, quality: Int = 90) throws(ImagingError) -> [UInt8] {
        try encode(image, quality: quality, chromaSubsampling: defaultChromaSubsampling(quality: quality))
    }

    /// The chroma subsampling `encode(_:quality:)` uses: 4:4:4 for quality ≥ 90, 4:2:0 below.
    ///
    /// - Parameter quality: libjpeg quality, 1...100.
    /// - Returns: `.chroma444` for `quality >= 90`, `.chroma420` otherwise.
    public static func defaultChromaSubsampling(quality: Int) -> ChromaSubsampling {
        quality >= 90 ? .chroma444 : .chroma420
    }

    /// Encodes an RGB image as a baseline JPEG with the given chroma subsampling.
    ///
    /// - Parameters:
    ///   - image: the image; both sides must be in 1...`maximumSupportedSide`.
    ///   - quality: libjpeg quality, 1 (smallest) ... 100 (best).
    ///   - chromaSubsampling: the chroma resolution.
    /// - Returns: the JPEG file bytes.
    /// - Throws: `ImagingError`, as `encode(_:quality:)`.
    /// - Complexity: O(width × height).
    public static func encode(
        _ image: RGBImage, quality: Int, chromaSubsampling: ChromaSubsampling
    ) throws(ImagingError) -> [UInt8] {
        try compress(
            image.pixels, width: image.width, height: image.height, pixelFormat: Int32(TJPF_RGB.rawValue),
            subsampling: chromaSubsampling.turboJPEGValue, quality: quality)
    }

    /// Encodes a grayscale image as a single-channel baseline JPEG.
    ///
    /// - Parameters:
    ///   - image: the image; both sides must be in 1...`maximumSupportedSide`.
    ///   - quality: libjpeg quality, 1 (smallest) ... 100 (best).
    /// - Returns: the JPEG file bytes.
    /// - Throws: `ImagingError`, as `encode(_:quality:)` for RGB images.
    /// - Complexity: O(width × height).
    public static func encode(_ image: GrayImage, quality: Int = 90) throws(ImagingError) -> [UInt8] {
        try compress(
            image.pixels, width: image.width, height: image.height, pixelFormat: Int32(TJPF_GRAY.rawValue),
            subsampling: Int32(TJSAMP_GRAY.rawValue), quality: quality)
    }

    /// Encodes an RGB image and writes it to a file (chroma subsampling as `encode(_:quality:)`).
    ///
    /// - Parameters:
    ///   - image: the image.
    ///   - path: the file to create or replace.
    ///   - quality: libjpeg quality, 1...100.
    /// - Throws: `ImagingError`, as `encode(_:quality:)`, or `IO` when the file cannot be written.
    public static func write(_ image: RGBImage, toFile path: String, quality: Int = 90) throws(ImagingError) {
        try ImageFile.write(try encode(image, quality: quality), to: path)
    }

    /// Encodes a grayscale image and writes it to a file.
    ///
    /// - Parameters:
    ///   - image: the image.
    ///   - path: the file to create or replace.
    ///   - quality: libjpeg quality, 1...100.
    /// - Throws: `ImagingError`, as `encode(_:quality:)`, or `IO` when the file cannot be written.
    public static func write(_ image: GrayImage, toFile path: String, quality: Int = 90) throws(ImagingError) {
        try ImageFile.write(try encode(image, quality: quality), to: path)
    }

    // MARK: Implementation

    /// What `tjDecompressHeader3` reports once the stream passed every check.
    struct Header {
        var width: Int
        var height: Int
    }

    /// Flags for every decompression: stop at the first warning, bound progressive scans.
    static let decompressFlags: Int32 = TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS

    /// Validates the stream's header and size limits; nothing is allocated for pixels.
    static func readHeader(_ data: [UInt8], maxSide: Int) throws(ImagingError) -> Header {
        let (scan, limit) = try preflight(data, maxSide: maxSide)
        let handle = try makeDecompressor()
        defer { tjDestroy(handle) }
        return try readHeader(data, scan: scan, limit: limit, handle: handle)
    }

    /// Checks that need no TurboJPEG handle: non-empty data, the SOI marker, `maxSide`, and the
    /// frame size found by the marker walk.
    static func preflight(_ data: [UInt8], maxSide: Int) throws(ImagingError) -> (scan: JPEGMarkerScan, limit: Int) {
        guard !data.isEmpty else { throw .emptyImageData }
        guard data.count >= 2, data[0] == 0xFF, data[1] == 0xD8 else { throw .notAJPEG }
        guard maxSide >= 1 else { throw .invalidArgument("maxSide must be at least 1, got \(maxSide)") }
        let limit = min(maxSide, maximumSupportedSide)
        let scan = data.withUnsafeBufferPointer { JPEGMarkerScan($0) }
        if let frame = scan.frame {
            try checkSize(width: frame.width, height: frame.height, limit: limit)
        }
        return (scan, limit)
    }

    /// A fresh TurboJPEG decompressor; the caller destroys it.
    static func makeDecompressor() throws(ImagingError) -> tjhandle {
        guard let handle = tjInitDecompress() else { throw .corruptJPEG(errorMessage(nil)) }
        return handle
    }

    /// Reads the header with libjpeg-turbo and applies the size, content and colour-space checks.
    static func readHeader(
        _ data: [UInt8], scan: JPEGMarkerScan, limit: Int, handle: tjhandle
    ) throws(ImagingError) -> Header {
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let status = data.withUnsafeBufferPointer { bytes in
            tjDecompressHeader3(
                handle, bytes.baseAddress, UInt(bytes.count), &width, &height, &subsampling, &colorspace)
        }
        if status != 0 {
            let message = errorMessage(handle)
            // libjpeg-turbo replaces a missing tail by a fake EOI marker, so a stream cut inside its
            // headers often surfaces as some other error; the marker walk tells that case apart.
            if scan.endedEarly { throw .truncatedJPEG(message) }
            throw classify(message)
        }
        if width == 0 && height == 0 {
            // libjpeg-turbo accepts a tables-only stream (no frame, ended by EOI or by the data).
            if scan.endedEarly { throw .truncatedJPEG("the data ends before the first frame header") }
            throw .corruptJPEG("the stream contains no image (no frame header before the end)")
        }
        try checkSize(width: Int(width), height: Int(height), limit: limit)
        if colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue) {
            throw .unsupportedJPEG("CMYK and YCCK JPEGs cannot be decoded to RGB or gray")
        }
        return Header(width: Int(width), height: Int(height))
    }

    /// Rejects empty and oversized frames.
    static func checkSize(width: Int, height: Int, limit: Int) throws(ImagingError) {
        guard width > 0, height > 0 else { throw .invalidImageSize(width: width, height: height) }
        guard width <= limit, height <= limit else {
            throw .imageTooLarge(width: width, height: height, limit: limit)
        }
    }

    /// Decodes into a freshly allocated buffer of `channels` (1 or 3) bytes per pixel.
    static func decompress(
        _ data: [UInt8], maxSide: Int, channels: Int
    ) throws(ImagingError) -> (width: Int, height: Int, pixels: [UInt8]) {
        let (scan, limit) = try preflight(data, maxSide: maxSide)
        let handle = try makeDecompressor()
        defer { tjDestroy(handle) }
        let header = try readHeader(data, scan: scan, limit: limit, handle: handle)
        let pixelFormat = channels == 1 ? Int32(TJPF_GRAY.rawValue) : Int32(TJPF_RGB.rawValue)
        var pixels = [UInt8](repeating: 0, count: header.width * header.height * channels)
        let status = data.withUnsafeBufferPointer { bytes in
            pixels.withUnsafeMutableBufferPointer { output in
                tjDecompress2(
                    handle, bytes.baseAddress, UInt(bytes.count), output.baseAddress, Int32(header.width),
                    Int32(header.width * channels), Int32(header.height), pixelFormat, decompressFlags)
            }
        }
        guard status == 0 else { throw classify(errorMessage(handle)) }
        return (header.width, header.height, pixels)
    }

    /// Maps a libjpeg-turbo message to an error: data running out is truncation, the rest corruption.
    static func classify(_ message: String) -> ImagingError {
        if message.contains("Premature end of JPEG file") { return .truncatedJPEG(message) }
        if message.contains("subsampling") || message.contains("Unsupported color conversion") {
            return .unsupportedJPEG(message)
        }
        return .corruptJPEG(message)
    }

    /// Compresses interleaved pixels; TurboJPEG allocates the output, which is copied and freed.
    static func compress(
        _ pixels: [UInt8], width: Int, height: Int, pixelFormat: Int32, subsampling: Int32, quality: Int
    ) throws(ImagingError) -> [UInt8] {
        guard width > 0, height > 0 else { throw .invalidImageSize(width: width, height: height) }
        guard pixels.count == width * height * (pixelFormat == Int32(TJPF_GRAY.rawValue) ? 1 : 3) else {
            throw .invalidArgument("pixel count \(pixels.count) does not match the \(width)×\(height) image")
        }
        guard width <= maximumSupportedSide, height <= maximumSupportedSide else {
            throw .imageTooLarge(width: width, height: height, limit: maximumSupportedSide)
        }
        guard (1...100).contains(quality) else {
            throw .invalidArgument("JPEG quality must be in 1...100, got \(quality)")
        }
        guard let handle = tjInitCompress() else { throw .encodeFailed(errorMessage(nil)) }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize: UInt = 0
        let status = pixels.withUnsafeBufferPointer { input in
            tjCompress2(
                handle, input.baseAddress, Int32(width), 0, Int32(height), pixelFormat, &output, &outputSize,
                subsampling, Int32(quality), TJFLAG_ACCURATEDCT)
        }
        defer { if let output { tjFree(output) } }
        guard status == 0, let output else { throw .encodeFailed(errorMessage(handle)) }
        return [UInt8](UnsafeBufferPointer(start: output, count: Int(outputSize)))
    }

    /// The last TurboJPEG error message of `handle` (or of the calling thread when `handle` is nil).
    static func errorMessage(_ handle: tjhandle?) -> String {
        guard let text = tjGetErrorStr2(handle) else { return "unknown TurboJPEG error" }
        return String(cString: text)
    }
}
