/// A single-channel 8-bit image, row-major, no padding: `pixels[y * width + x]`.
public struct GrayImage: Equatable, Sendable {
    /// Width and height in pixels.
    public let width: Int, height: Int
    /// Intensities, `width * height` of them.
    public var pixels: [UInt8]

    /// An image filled with `value`.
    public init(width: Int, height: Int, value: UInt8 = 0) {
        precondition(width >= 0 && height >= 0, "image size must not be negative")
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: value, count: width * height)
    }

    /// An image over existing pixels (`pixels.count == width * height`).
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height, "pixel count must equal width × height")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The intensity at (x, y); no bounds check beyond the array's.
    @inlinable public subscript(x: Int, y: Int) -> UInt8 {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }
}

/// A three-channel 8-bit RGB image, interleaved, row-major, no padding.
public struct RGBImage: Equatable, Sendable {
    /// Width and height in pixels.
    public let width: Int, height: Int
    /// Interleaved R, G, B bytes, `3 * width * height` of them.
    public var pixels: [UInt8]

    /// An image filled with one colour.
    public init(width: Int, height: Int, fill: (UInt8, UInt8, UInt8) = (0, 0, 0)) {
        precondition(width >= 0 && height >= 0, "image size must not be negative")
        self.width = width
        self.height = height
        var p = [UInt8](repeating: 0, count: 3 * width * height)
        for i in 0..<(width * height) {
            p[3 * i] = fill.0
            p[3 * i + 1] = fill.1
            p[3 * i + 2] = fill.2
        }
        pixels = p
    }

    /// An image over existing interleaved pixels (`pixels.count == 3 * width * height`).
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == 3 * width * height, "pixel count must equal 3 × width × height")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The luma image (ITU-R BT.601 weights, rounded).
    public var gray: GrayImage {
        var out = [UInt8](repeating: 0, count: width * height)
        for i in 0..<(width * height) {
            let r = UInt32(pixels[3 * i]), g = UInt32(pixels[3 * i + 1]), b = UInt32(pixels[3 * i + 2])
            out[i] = UInt8((299 * r + 587 * g + 114 * b + 500) / 1000)
        }
        return GrayImage(width: width, height: height, pixels: out)
    }
}

extension RGBImage {
    /// A colour image with three equal channels copied from `gray`.
    ///
    /// - Parameter gray: the source image.
    /// - Complexity: O(width × height).
    public init(_ gray: GrayImage) {
        var rgb = [UInt8](repeating: 0, count: 3 * gray.pixels.count)
        for (i, value) in gray.pixels.enumerated() {
            rgb[3 * i] = value
            rgb[3 * i + 1] = value
            rgb[3 * i + 2] = value
        }
        self.init(width: gray.width, height: gray.height, pixels: rgb)
    }
}
