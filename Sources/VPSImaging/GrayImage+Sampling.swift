/// Sub-pixel sampling of gray images.
extension GrayImage {
    /// The bilinearly interpolated intensity at a continuous position.
    ///
    /// Pixel-centre convention: (0, 0) is the top-left corner of the top-left pixel and the centre
    /// of pixel (i, j) is (i + 0.5, j + 0.5), where the sample equals the pixel's value exactly.
    /// Positions outside the pixel centres (including outside the image) are clamped to the nearest
    /// edge, so the result is always defined for finite coordinates.
    ///
    /// - Parameters:
    ///   - x: horizontal position in pixels.
    ///   - y: vertical position in pixels.
    /// - Returns: the interpolated intensity in 0...255 (not rounded).
    /// - Complexity: O(1).
    public func bilinear(at x: Double, y: Double) -> Double {
        precondition(width > 0 && height > 0, "cannot sample an empty image")
        let u = min(max(x - 0.5, 0), Double(width - 1))
        let v = min(max(y - 0.5, 0), Double(height - 1))
        guard u.isFinite, v.isFinite else { return Double(pixels[0]) }
        let x0 = Int(u.rounded(.down))
        let y0 = Int(v.rounded(.down))
        let x1 = min(x0 + 1, width - 1)
        let y1 = min(y0 + 1, height - 1)
        let fx = u - Double(x0)
        let fy = v - Double(y0)
        let top = Double(pixels[y0 * width + x0]) * (1 - fx) + Double(pixels[y0 * width + x1]) * fx
        let bottom = Double(pixels[y1 * width + x0]) * (1 - fx) + Double(pixels[y1 * width + x1]) * fx
        return top * (1 - fy) + bottom * fy
    }
}
