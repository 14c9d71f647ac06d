#if canImport(SwiftUI) && canImport(ARKit) && os(iOS)
import CoreGraphics
import Foundation
import ImageIO
import MultiSetSDK

/// JPEG encoding and decoding for the SDK through ImageIO and Core Graphics.
@available(iOS 17.0, *)
public struct CoreGraphicsImageCodec: ImageCodec {
    /// A codec.
    public init() {}

    public func encodeJPEG(_ image: RGBPixels, quality: Int) -> Data? {
        guard let provider = CGDataProvider(data: image.data as CFData),
            let cgImage = CGImage(
                width: image.width, height: image.height, bitsPerComponent: 8, bitsPerPixel: 24,
                bytesPerRow: image.width * 3, space: CGColorSpaceCreateDeviceRGB(),
                bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.none.rawValue), provider: provider, decode: nil,
                shouldInterpolate: false, intent: .defaultIntent)
        else { return nil }
        let output = NSMutableData()
        guard let destination = CGImageDestinationCreateWithData(output, "public.jpeg" as CFString, 1, nil) else {
            return nil
        }
        let options = [kCGImageDestinationLossyCompressionQuality: Double(quality) / 100] as CFDictionary
        CGImageDestinationAddImage(destination, cgImage, options)
        return CGImageDestinationFinalize(destination) ? output as Data : nil
    }

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
        return RGBPixels(data: Self.dropAlpha(rgba), width: w, height: h)
    }

    /// RGBA bytes to RGB bytes.
    static func dropAlpha(_ rgba: [UInt8]) -> Data {
        var rgb = Data(count: rgba.count / 4 * 3)
        rgb.withUnsafeMutableBytes { out in
            var j = 0
            for i in stride(from: 0, to: rgba.count, by: 4) {
                out[j] = rgba[i]
                out[j + 1] = rgba[i + 1]
                out[j + 2] = rgba[i + 2]
                j += 3
            }
        }
        return rgb
    }
}
#endif
