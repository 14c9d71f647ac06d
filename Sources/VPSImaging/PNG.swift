import CPNG
import CPNGShim

/// Lossless PNG encoding and decoding through libpng.
///
/// Images are written as 8-bit gray or 8-bit RGB, without interlacing. The reader accepts every
/// PNG libpng accepts: palette and 1/2/4-bit images are expanded, 16-bit samples are scaled to 8
/// bits, interlacing is undone and alpha is dropped. libpng's `setjmp`/`longjmp` error handling is
/// kept inside the small C target `CPNGShim`; failures come back as `ImagingError.pngFailed` with
/// libpng's message. All functions are safe to call concurrently.
public enum PNG {
    /// The linked libpng version, for example `"1.6.39"`.
    public static var libraryVersion: String {
        let number = Int(png_access_version_number())
        return "\(number / 10000).\(number / 100 % 100).\(number % 100)"
    }

    // MARK: Encoding

    /// Encodes a grayscale image as an 8-bit gray PNG.
    ///
    /// - Parameters:
    ///   - image: the image; both sides must be at least 1.
    ///   - compressionLevel: zlib level, 0 (store) ... 9 (smallest).
    /// - Returns: the PNG file bytes.
    /// - Throws: `ImagingError` — `INVALID_IMAGE_SIZE`, `INVALID_ARGUMENT` or `PNG_FAILED`.
    /// - Complexity: O(width × height).
    public static func encode(_ image: GrayImage, compressionLevel: Int = 6) throws(ImagingError) -> [UInt8] {
        try encode(image.pixels, width: image.width, height: image.height, channels: 1, level: compressionLevel)
    }

    /// Encodes an RGB image as an 8-bit RGB PNG.
    ///
    /// - Parameters:
    ///   - image: the image; both sides must be at least 1.
    ///   - compressionLevel: zlib level, 0 (store) ... 9 (smallest).
    /// - Returns: the PNG file bytes.
    /// - Throws: `ImagingError` — `INVALID_IMAGE_SIZE`, `INVALID_ARGUMENT` or `PNG_FAILED`.
    /// - Complexity: O(width × height).
    public static func encode(_ image: RGBImage, compressionLevel: Int = 6) throws(ImagingError) -> [UInt8] {
        try encode(image.pixels, width: image.width, height: image.height, channels: 3, level: compressionLevel)
    }

    /// Writes a grayscale image to a PNG file.
    ///
    /// - Parameters:
    ///   - image: the image.
    ///   - path: the file to create or replace.
    ///   - compressionLevel: zlib level, 0...9.
    /// - Throws: `ImagingError`, as `encode(_:compressionLevel:)`, or `IO`.
    public static func write(_ image: GrayImage, toFile path: String, compressionLevel: Int = 6) throws(ImagingError) {
        try ImageFile.write(try encode(image, compressionLevel: compressionLevel), to: path)
    }

    /// Writes an RGB image to a PNG file.
    ///
    /// - Parameters:
    ///   - image: the image.
    ///   - path: the file to create or replace.
    ///   - compressionLevel: zlib level, 0...9.
    /// - Throws: `ImagingError`, as `encode(_:compressionLevel:)`, or `IO`.
    public static func write(_ image: RGBImage, toFile path: String, compressionLevel: Int = 6) throws(ImagingError) {
        try ImageFile.write(try encode(image, compressionLevel: compressionLevel), to: path)
    }

    // MARK: Decoding

    /// Decodes a PNG into an RGB image (gray PNGs are expanded to three equal channels).
    ///
    /// - Parameters:
    ///   - data: the complete PNG file.
    ///   - maxSide: the largest accepted width or height in pixels, checked before allocating.
    /// - Returns: the image.
    /// - Throws: `ImagingError` — `EMPTY_IMAGE_DATA`, `NOT_A_PNG`, `IMAGE_TOO_LARGE`,
    ///   `INVALID_IMAGE_SIZE`, `INVALID_ARGUMENT` (`maxSide < 1`) or `PNG_FAILED`.
    /// - Complexity: O(`data.count` + width × height).
    public static func decodeRGB(_ data: [UInt8], maxSide: Int = 16384) throws(ImagingError) -> RGBImage {
        let decoded = try decode(data, maxSide: maxSide, headerOnly: false)
        return rgbImage(width: decoded.width, height: decoded.height, channels: decoded.channels, decoded.pixels)
    }

    /// Decodes a PNG into a grayscale image (colour PNGs are reduced to BT.601 luma, as `RGBImage.gray`).
    ///
    /// - Parameters:
    ///   - data: the complete PNG file.
    ///   - maxSide: the largest accepted width or height in pixels, checked before allocating.
    /// - Returns: the image.
    /// - Throws: `ImagingError`, as `decodeRGB(_:maxSide:)`.
    /// - Complexity: O(`data.count` + width × height).
    public static func decodeGray(_ data: [UInt8], maxSide: Int = 16384) throws(ImagingError) -> GrayImage {
        let decoded = try decode(data, maxSide: maxSide, headerOnly: false)
        switch decoded.channels {
        case 1:
            return GrayImage(width: decoded.width, height: decoded.height, pixels: decoded.pixels)
        case 2:
            let values = (0..<(decoded.width * decoded.height)).map { decoded.pixels[2 * $0] }
            return GrayImage(width: decoded.width, height: decoded.height, pixels: values)
        default:
            return rgbImage(width: decoded.width, height: decoded.height, channels: decoded.channels, decoded.pixels)
                .gray
        }
    }

    /// Reads and decodes a PNG file into an RGB image.
    ///
    /// - Parameters:
    ///   - path: the file to read.
    ///   - maxSide: the largest accepted width or height in pixels.
    /// - Returns: the image.
    /// - Throws: `ImagingError.io` when the file cannot be read, otherwise as `decodeRGB(_:maxSide:)`.
    public static func readRGB(fromFile path: String, maxSide: Int = 16384) throws(ImagingError) -> RGBImage {
        try decodeRGB(try ImageFile.read(path), maxSide: maxSide)
    }

    /// Reads and decodes a PNG file into a grayscale image.
    ///
    /// - Parameters:
    ///   - path: the file to read.
    ///   - maxSide: the largest accepted width or height in pixels.
    /// - Returns: the image.
    /// - Throws: `ImagingError.io` when the file cannot be read, otherwise as `decodeGray(_:maxSide:)`.
    public static func readGray(fromFile path: String, maxSide: Int = 16384) throws(ImagingError) -> GrayImage {
        try decodeGray(try ImageFile.read(path), maxSide: maxSide)
    }

    /// The pixel size in a PNG's header, without decoding the image or reading any other chunk.
    ///
    /// The IHDR chunk must come first (PNG 1.2 §5.2), so the size is read from bytes 16–23 without
    /// libpng: a file with a thousand text chunks before its pixels costs nothing here.
    ///
    /// - Parameter data: the PNG file (the signature and IHDR chunk suffice).
    /// - Returns: width and height in pixels.
    /// - Throws: `ImagingError` — `EMPTY_IMAGE_DATA`, `NOT_A_PNG`, `INVALID_IMAGE_SIZE` or `PNG_FAILED`.
    /// - Complexity: O(1).
    public static func size(of data: [UInt8]) throws(ImagingError) -> (width: Int, height: Int) {
        guard !data.isEmpty else { throw .emptyImageData }
        guard data.starts(with: signature) else { throw .notAPNG }
        guard data.count >= 33, Array(data[8..<16]) == [0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52] else {
            throw .pngFailed("the first chunk is not a 13-byte IHDR")
        }
        func u32(_ k: Int) -> Int { data[k..<(k + 4)].reduce(0) { $0 << 8 | Int($1) } }
        let width = u32(16), height = u32(20)
        guard width > 0, height > 0, width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF else {
            throw .invalidImageSize(width: width, height: height)
        }
        return (width, height)
    }

    /// The eight-byte PNG signature.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    // MARK: Implementation

    /// Room for libpng's messages (they are short, one line).
    static let messageCapacity = 256

    static func encode(
        _ pixels: [UInt8], width: Int, height: Int, channels: Int, level: Int
    ) throws(ImagingError) -> [UInt8] {
        guard width > 0, height > 0 else { throw .invalidImageSize(width: width, height: height) }
        guard pixels.count == width * height * channels else {
            throw .invalidArgument("pixel count \(pixels.count) does not match the \(width)×\(height) image")
        }
        guard width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw .imageTooLarge(width: width, height: height, limit: Int(Int32.max))
        }
        guard (0...9).contains(level) else {
            throw .invalidArgument("PNG compression level must be in 0...9, got \(level)")
        }
        var output: UnsafeMutablePointer<UInt8>?
        var outputCount = 0
        var message = [CChar](repeating: 0, count: messageCapacity)
        let status = pixels.withUnsafeBufferPointer { input in
            message.withUnsafeMutableBufferPointer { text in
                cpngshim_encode(
                    input.baseAddress, UInt32(width), UInt32(height), Int32(channels), Int32(level), &output,
                    &outputCount, text.baseAddress, text.count)
            }
        }
        defer { if let output { cpngshim_free(output) } }
        guard status == CPNGSHIM_OK, let output else {
            throw .pngFailed(status == CPNGSHIM_INVALID_ARGUMENT ? "invalid encoder argument" : text(message))
        }
        return [UInt8](UnsafeBufferPointer(start: output, count: outputCount))
    }

    static func decode(
        _ data: [UInt8], maxSide: Int, headerOnly: Bool
    ) throws(ImagingError) -> (width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        guard !data.isEmpty else { throw .emptyImageData }
        guard maxSide >= 1 else { throw .invalidArgument("maxSide must be at least 1, got \(maxSide)") }
        let limit = UInt32(min(maxSide, Int(UInt32.max)))
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: UInt32 = 0
        var height: UInt32 = 0
        var channels: Int32 = 0
        var message = [CChar](repeating: 0, count: messageCapacity)
        let status = data.withUnsafeBufferPointer { input in
            message.withUnsafeMutableBufferPointer { text in
                cpngshim_decode(
                    input.baseAddress, input.count, limit, headerOnly ? 1 : 0, &pixels, &width, &height, &channels,
                    text.baseAddress, text.count)
            }
        }
        defer { if let pixels { cpngshim_free(pixels) } }
        switch status {
        case CPNGSHIM_OK: break
        case CPNGSHIM_NOT_PNG: throw .notAPNG
        case CPNGSHIM_TOO_LARGE: throw .imageTooLarge(width: Int(width), height: Int(height), limit: Int(limit))
        default: throw .pngFailed(text(message))
        }
        // libpng rejects zero sizes in IHDR; this guards the arithmetic below regardless.
        guard width > 0, height > 0 else { throw .invalidImageSize(width: Int(width), height: Int(height)) }
        guard !headerOnly else { return (Int(width), Int(height), 0, []) }
        guard let pixels, (1...4).contains(channels) else { throw .pngFailed("decoder returned no pixels") }
        let count = Int(width) * Int(height) * Int(channels)
        return (Int(width), Int(height), Int(channels), [UInt8](UnsafeBufferPointer(start: pixels, count: count)))
    }

    /// Interleaved 1-, 2-, 3- or 4-channel pixels as RGB (gray replicated, alpha dropped).
    static func rgbImage(width: Int, height: Int, channels: Int, _ pixels: [UInt8]) -> RGBImage {
        if channels == 3 { return RGBImage(width: width, height: height, pixels: pixels) }
        let pixelCount = width * height
        var rgb = [UInt8](repeating: 0, count: 3 * pixelCount)
        for i in 0..<pixelCount {
            if channels <= 2 {
                let value = pixels[channels * i]
                rgb[3 * i] = value
                rgb[3 * i + 1] = value
                rgb[3 * i + 2] = value
            } else {
                rgb[3 * i] = pixels[channels * i]
                rgb[3 * i + 1] = pixels[channels * i + 1]
                rgb[3 * i + 2] = pixels[channels * i + 2]
            }
        }
        return RGBImage(width: width, height: height, pixels: rgb)
    }

    /// A C string held in a buffer, read up to its terminator (or the buffer's end).
    static func text(_ buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return bytes.isEmpty ? "unknown libpng error" : String(decoding: bytes, as: UTF8.self)
    }
}
