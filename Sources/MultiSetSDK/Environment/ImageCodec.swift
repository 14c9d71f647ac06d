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

    /// Packs 4-byte pixels (RGBA or RGBX, row-major, no padding) into RGB, dropping the fourth byte.
    public init(rgbx: [UInt8], width: Int, height: Int) {
        var rgb = Data(count: width * height * 3)
        rgb.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) in
            rgbx.withUnsafeBufferPointer { src in
                for i in 0..<min(width * height, src.count / 4) {
                    out[3 * i] = src[4 * i]
                    out[3 * i + 1] = src[4 * i + 1]
                    out[3 * i + 2] = src[4 * i + 2]
                }
            }
        }
        self.init(data: rgb, width: width, height: height)
    }
}

/// JPEG encoding and decoding (SPEC §3.1: the SDK links no image library). The default is ImageIO on
/// Apple platforms and the SDK's own ``SwiftImageCodec`` elsewhere; tests inject their own.
///
/// Without a codec the SDK can only send JPEG frames that are already upright and within 960 px.
public protocol ImageCodec: Sendable {
    /// Encodes RGB pixels as JPEG at `quality` (50–100), or nil on failure.
    func encodeJPEG(_ image: RGBPixels, quality: Int) -> Data?
    /// Decodes a JPEG to RGB pixels, or nil on failure.
    func decodeJPEG(_ data: Data) -> RGBPixels?
}
