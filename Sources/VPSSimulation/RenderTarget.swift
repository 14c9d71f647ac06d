import VPSImaging

/// The buffers a render writes: colour, inverse depth and the surface seen at each pixel.
///
/// Reusing one target across frames avoids reallocating its buffers. Pixel (x, y) covers
/// `[x, x+1) × [y, y+1)` in `Camera` pixel coordinates and shows what lies along the ray through its
/// centre (x + 0.5, y + 0.5).
public struct RenderTarget: Sendable {
    /// Size in pixels.
    public private(set) var width: Int, height: Int
    /// Packed `0x00BBGGRR` colours, row-major.
    var color: [UInt32]
    /// 1 / depth (camera-frame Z, 1/metres) per pixel; 0 where nothing was drawn.
    var inverseDepth: [Float]
    /// Index into `Venue.surfaces` of the surface seen at each pixel; −1 where none.
    var surfaceIndex: [Int32]

    /// An empty target of the given size.
    public init(width: Int, height: Int) {
        precondition(width > 0 && height > 0, "render target size must be positive")
        self.width = width
        self.height = height
        color = [UInt32](repeating: 0, count: width * height)
        inverseDepth = [Float](repeating: 0, count: width * height)
        surfaceIndex = [Int32](repeating: -1, count: width * height)
    }

    /// Resizes when needed and clears to `background`.
    mutating func clear(width: Int, height: Int, background: UInt32) {
        if width != self.width || height != self.height {
            self = RenderTarget(width: width, height: height)
        }
        for i in 0..<color.count { color[i] = background }
        for i in 0..<inverseDepth.count { inverseDepth[i] = 0 }
        for i in 0..<surfaceIndex.count { surfaceIndex[i] = -1 }
    }

    /// The colour buffer as an RGB image.
    public var image: RGBImage {
        var bytes = [UInt8](repeating: 0, count: 3 * width * height)
        bytes.withUnsafeMutableBufferPointer { out in
            color.withUnsafeBufferPointer { c in
                for i in 0..<c.count {
                    let v = c[i]
                    out[3 * i] = UInt8(truncatingIfNeeded: v)
                    out[3 * i + 1] = UInt8(truncatingIfNeeded: v >> 8)
                    out[3 * i + 2] = UInt8(truncatingIfNeeded: v >> 16)
                }
            }
        }
        return RGBImage(width: width, height: height, pixels: bytes)
    }

    /// Depth (camera-frame Z, metres) at pixel (x, y), or nil where nothing was drawn.
    public func depth(x: Int, y: Int) -> Double? {
        let w = inverseDepth[y * width + x]
        return w > 0 ? 1 / Double(w) : nil
    }

    /// The depth map: camera-frame Z in metres per pixel, row-major; 0 where nothing was drawn.
    public var depthMap: [Float] { inverseDepth.map { $0 > 0 ? 1 / $0 : 0 } }

    /// Index into `Venue.surfaces` of the surface seen at pixel (x, y), or nil for background.
    public func surface(x: Int, y: Int) -> Int? {
        let s = surfaceIndex[y * width + x]
        return s >= 0 ? Int(s) : nil
    }
}
