/// Per-pixel depth of an image: camera-frame Z in metres (distance along the optical axis, not along
/// the ray), row-major, top row first.
///
/// Pixel (x, y) holds the depth seen through its centre, which is (x + 0.5, y + 0.5) in `Camera`
/// pixel coordinates (the convention of VPSGeometry, of the renderer and of keypoints). A value of 0,
/// a negative value, NaN or ±infinity means unknown.
public struct DepthMap: Equatable, Sendable {
    /// Size in pixels.
    public var width: Int, height: Int
    /// `width · height` depths in metres, row-major.
    public var values: [Float]

    /// A depth map from its values.
    ///
    /// - Precondition: `values.count == width · height`, both sides positive.
    public init(width: Int, height: Int, values: [Float]) {
        precondition(width > 0 && height > 0 && values.count == width * height, "depth map size mismatch")
        self.width = width
        self.height = height
        self.values = values
    }

    /// The depth at pixel (x, y) in metres, or nil when unknown or outside the map.
    @inlinable public func depth(x: Int, y: Int) -> Float? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        let z = values[y * width + x]
        return z.isFinite && z > 0 ? z : nil
    }

    /// Depth at a sub-pixel position (`Camera` convention) by bilinear interpolation of inverse depth,
    /// which is exact on planes (1/Z is affine in the pixel coordinates there).
    ///
    /// Rejects a position whose 3×3 neighbourhood (around the pixel containing it) has an unknown depth
    /// or a spread `(max − min) / min` above `maxSpread`: a keypoint on a depth discontinuity would be
    /// lifted onto the wrong surface or between the two.
    ///
    /// - Returns: depth in metres, or nil.
    public func interpolatedDepth(atPixel px: SIMD2<Double>, maxSpread: Double) -> Double? {
        guard px.x.isFinite, px.y.isFinite else { return nil }
        let ix = Int(px.x.rounded(.down)), iy = Int(px.y.rounded(.down))
        guard ix >= 1, iy >= 1, ix + 1 < width, iy + 1 < height else { return nil }
        var lo = Float.infinity, hi: Float = 0
        for dy in -1...1 {
            for dx in -1...1 {
                guard let z = depth(x: ix + dx, y: iy + dy) else { return nil }
                lo = min(lo, z)
                hi = max(hi, z)
            }
        }
        guard Double(hi - lo) <= maxSpread * Double(lo) else { return nil }
        // Pixel centres sit at +0.5: the four around `px` are within the checked 3×3 block.
        let u = px.x - 0.5, v = px.y - 0.5
        let x0 = Int(u.rounded(.down)), y0 = Int(v.rounded(.down))
        let fx = u - Double(x0), fy = v - Double(y0)
        func w(_ x: Int, _ y: Int) -> Double { 1 / Double(values[y * width + x]) }
        let top = (1 - fx) * w(x0, y0) + fx * w(x0 + 1, y0)
        let bottom = (1 - fx) * w(x0, y0 + 1) + fx * w(x0 + 1, y0 + 1)
        let inverse = (1 - fy) * top + fy * bottom
        return inverse > 0 ? 1 / inverse : nil
    }
}
