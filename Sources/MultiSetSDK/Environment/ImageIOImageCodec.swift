#if canImport(ImageIO) && canImport(CoreGraphics)
import CoreGraphics
import Foundation
import ImageIO

/// JPEG through ImageIO and Core Graphics (Apple platforms): the default codec there. The SDK calls it
/// on its frame queue, never on the main thread.
public struct ImageIOImageCodec: ImageCodec {
    /// A codec.
    public init() {}

    /// Encodes through `CGImageDestination` at `quality` / 100.
    public func encodeJPEG(_ image: RGBPixels, quality: Int) -> Data? {
        guard image.width > 0, image.height > 0, image.data.count >= image.width * image.height * 3,
            let provider = CGDataProvider(data: image.data as CFData),
            let cgImage = CGImage(
                width: image.width, height: image.height, bitsPerComponent: 8, bitsPerPixel: 24,
                bytesPerRow: image.width * 3, space: CGColorSpaceCreateDeviceRGB(),
                bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.none.rawValue), provider: provider, decode: nil,
                shouldInterpolate: false, intent: .defaultIntent)
        else { return nil }
        let output = NSMutableData()
        guard
            let destination = CGImageDestinationCreateWithData(
                output as CFMutableData, "public.jpeg" as CFString, 1, nil)
        else { return nil }
        let options =
            [kCGImageDestinationLossyCompressionQuality: Double(min(max(quality, 1), 100)) / 100] as CFDictionary
        CGImageDestinationAddImage(destination, cgImage, options)
        return CGImageDestinationFinalize(destination) ? output as Data : nil
    }

    /// Decodes through `CGImageSource` and redraws into packed RGB.
    public func decodeJPEG(_ data: Data) -> RGBPixels? {
        guard let source = CGImageSourceCreateWithData(data as CFData, nil),
            let cgImage = CGImageSourceCreateImageAtIndex(source, 0, nil)
        else { return nil }
        let (w, h) = (cgImage.width, cgImage.height)
        var rgba = [UInt8](repeating: 0, count: w * h * 4)
        let drawn = rgba.withUnsafeMutableBytes { buffer -> Bool in
            guard
                let context = CGContext(
                    data: buffer.baseAddress, width: w, height: h, bitsPerComponent: 8, bytesPerRow: w * 4,
                    space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: CGImageAlphaInfo.noneSkipLast.rawValue)
            else { return false }
            context.draw(cgImage, in: CGRect(x: 0, y: 0, width: w, height: h))
            return true
        }
        guard drawn else { return nil }
        return RGBPixels(rgbx: rgba, width: w, height: h)
    }
}
#endif
