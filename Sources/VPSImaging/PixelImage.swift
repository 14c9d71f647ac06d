/// An 8-bit image with interleaved channels, stored row-major without padding: the byte of channel
/// `c` at (x, y) is `pixels[(y * width + x) * channelCount + c]`.
///
/// `GrayImage` and `RGBImage` conform; resizing, rotation and cropping are written once for both.
public protocol PixelImage: Equatable, Sendable {
    /// Bytes per pixel (1 for gray, 3 for RGB).
    static var channelCount: Int { get }
    /// Width in pixels.
    var width: Int { get }
    /// Height in pixels.
    var height: Int { get }
    /// Interleaved samples, `width * height * channelCount` of them.
    var pixels: [UInt8] { get set }
    /// An image over existing interleaved pixels (`pixels.count == width * height * channelCount`).
    init(width: Int, height: Int, pixels: [UInt8])
}

extension GrayImage: PixelImage {
    /// One byte per pixel.
    public static var channelCount: Int { 1 }
}

extension RGBImage: PixelImage {
    /// Three bytes per pixel (R, G, B).
    public static var channelCount: Int { 3 }
}

extension PixelImage {
    /// True when the image has no pixels (a zero side).
    public var isEmpty: Bool { width == 0 || height == 0 }

    /// True when `pixels` holds exactly `width * height * channelCount` samples. `pixels` is
    /// mutable, so code that reads it through unsafe pointers checks this first.
    public var hasConsistentStorage: Bool {
        width >= 0 && height >= 0 && pixels.count == width * height * Self.channelCount
    }
}
