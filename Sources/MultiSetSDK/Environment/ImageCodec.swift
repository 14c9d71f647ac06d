import Foundation

/// A decoded 8-bit RGB image: row-major, 3 bytes per pixel.
public struct RGBPixels: Sendable, Equatable {
    /// Pixel bytes, `width * height * 3`.
    public var data: Data
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates an image.
    public init(data: Data, width: Int, height: Int) {
        self.data = data
        self.width = width
        self.height = height
    }
}

/// JPEG encoding and decoding, injected because the SDK links no image library (SPEC §3.1).
///
/// Without a codec the SDK can only send JPEG frames that are already upright and within 960 px.
public protocol ImageCodec: Sendable {
    /// Encodes RGB pixels as JPEG at `quality` (50–100), or nil on failure.
    func encodeJPEG(_ image: RGBPixels, quality: Int) -> Data?
    /// Decodes a JPEG to RGB pixels, or nil on failure.
    func decodeJPEG(_ data: Data) -> RGBPixels?
}
