import Foundation

/// The SDK's own codec: ``JPEGEncoder`` and ``JPEGDecoder``, pure Swift. The default on platforms
/// without ImageIO (Linux: a robot or a kiosk with a camera is a client too).
public struct SwiftImageCodec: ImageCodec {
    /// A codec.
    public init() {}

    /// Encodes with ``JPEGEncoder`` (full chroma from quality 90, halved below).
    public func encodeJPEG(_ image: RGBPixels, quality: Int) -> Data? {
        JPEGEncoder(quality: quality).encode(rgb: image.data, width: image.width, height: image.height)
    }

    /// Decodes baseline JPEGs with ``JPEGDecoder``.
    public func decodeJPEG(_ data: Data) -> RGBPixels? {
        guard let (rgb, w, h) = try? JPEGDecoder().decode(data) else { return nil }
        return RGBPixels(data: Data(rgb), width: w, height: h)
    }
}
