import Foundation
import MultiSetSDK
import VPSImaging

/// The SDK's `ImageCodec` over libjpeg-turbo (VPSImaging), for Linux hosts of the SDK (the demo, the
/// tests): the same bytes in and out as the SDK's own codec, faster in debug builds.
public struct TurboImageCodec: ImageCodec {
    /// The codec.
    public init() {}

    /// Encodes RGB pixels at `quality`.
    public func encodeJPEG(_ image: RGBPixels, quality: Int) -> Data? {
        let rgb = RGBImage(width: image.width, height: image.height, pixels: [UInt8](image.data))
        return (try? JPEG.encode(rgb, quality: quality)).map { Data($0) }
    }

    /// Decodes a JPEG to RGB pixels.
    public func decodeJPEG(_ data: Data) -> RGBPixels? {
        guard let image = try? JPEG.decodeRGB(data) else { return nil }
        return RGBPixels(data: Data(image.pixels), width: image.width, height: image.height)
    }
}
