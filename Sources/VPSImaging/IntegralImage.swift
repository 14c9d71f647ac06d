/// The summed-area table of a gray image (Crow, SIGGRAPH 1984), for exact area averages over
/// any axis-aligned box with real-valued corners.
///
/// `sums[y × (width + 1) + x]` is the sum of the pixels left of x and above y. Treating the image as
/// constant over each pixel's square (pixel (i, j) covers [i, i + 1) × [j, j + 1), the project's
/// pixel-corner convention), the integral up to a real position is the bilinear interpolation of the
/// table, so `boxMean` is the exact mean of that piecewise-constant image over the box — area
/// resampling at any scale and sub-pixel offset, without building a pyramid.
public struct IntegralImage: Sendable {
    /// Image size in pixels.
    public let width: Int
    public let height: Int
    /// `(width + 1) × (height + 1)` running sums (exact: 255 × 16.8 Mpx fits 32 bits).
    @usableFromInline let sums: [UInt32]
    /// The image itself (small boxes are summed from it directly).
    @usableFromInline let pixels: [UInt8]

    /// The table of `image`.
    ///
    /// - Complexity: O(width × height).
    public init(_ image: GrayImage) {
        let w = image.hasConsistentStorage ? image.width : 0
        let h = image.hasConsistentStorage ? image.height : 0
        width = w
        height = h
        let stride = w + 1
        var table = [UInt32](repeating: 0, count: stride * (h + 1))
        if w > 0, h > 0 {
            image.pixels.withUnsafeBufferPointer { p in
                table.withUnsafeMutableBufferPointer { t in
                    for y in 0..<h {
                        var row: UInt32 = 0
                        let src = p.baseAddress! + y * w
                        let above = t.baseAddress! + y * stride
                        let out = t.baseAddress! + (y + 1) * stride
                        for x in 0..<w {
                            row &+= UInt32(src[x])
                            out[x + 1] = above[x + 1] &+ row
                        }
                    }
                }
            }
        }
        sums = table
        pixels = w > 0 && h > 0 ? image.pixels : []
    }

    /// The integral of the image over [0, x] × [0, y] (positions clamped to the image).
    @inline(__always) public func integral(_ x: Double, _ y: Double) -> Double {
        sums.withUnsafeBufferPointer { integral($0, x, y) }
    }

    /// Reads box means through one borrowed view of the table (`BoxSampler`), for the many small boxes
    /// of a patch.
    @inlinable public func withBoxSampler<R>(_ body: (BoxSampler) throws -> R) rethrows -> R {
        try sums.withUnsafeBufferPointer { sums in
            try pixels.withUnsafeBufferPointer { pixels in
                try body(BoxSampler(sums: sums, pixels: pixels, width: width, height: height))
            }
        }
    }

    @inline(__always) private func integral(_ s: UnsafeBufferPointer<UInt32>, _ x: Double, _ y: Double) -> Double {
        let u = min(max(x, 0), Double(width)), v = min(max(y, 0), Double(height))
        let x0 = min(Int(u), max(0, width - 1)), y0 = min(Int(v), max(0, height - 1))
        let fx = u - Double(x0), fy = v - Double(y0)
        let stride = width + 1
        let i = y0 * stride + x0
        let a = Double(s[i]), b = Double(s[i + 1]), c = Double(s[i + stride]), d = Double(s[i + stride + 1])
        return a + fx * (b - a) + fy * (c - a) + fx * fy * (d - b - c + a)
    }

    /// The mean intensity over the box [x0, x1] × [y0, y1] (clamped to the image); 0 for an empty box.
    public func boxMean(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Double {
        let a = max(0, min(Double(width), x0)), b = max(0, min(Double(width), x1))
        let c = max(0, min(Double(height), y0)), d = max(0, min(Double(height), y1))
        let area = (b - a) * (d - c)
        guard area > 0 else { return 0 }
        return (integral(b, d) - integral(a, d) - integral(b, c) + integral(a, c)) / area
    }
}

/// Box means over a summed-area table (`IntegralImage.withBoxSampler`); valid inside that call only.
public struct BoxSampler {
    @usableFromInline let sums: UnsafeBufferPointer<UInt32>
    @usableFromInline let pixels: UnsafeBufferPointer<UInt8>
    @usableFromInline let width: Int
    @usableFromInline let height: Int

    @usableFromInline init(
        sums: UnsafeBufferPointer<UInt32>, pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int
    ) {
        self.sums = sums
        self.pixels = pixels
        self.width = width
        self.height = height
    }

    /// The mean over the square of half side `half` centred on (x, y), full-resolution pixels; nil when
    /// the square is not inside the image.
    @inlinable @inline(__always) public func mean(_ x: Double, _ y: Double, half: Double) -> Float? {
        let x0 = x - half, x1 = x + half, y0 = y - half, y1 = y + half
        guard x0 >= 0, y0 >= 0, x1 <= Double(width), y1 <= Double(height), half > 0 else { return nil }
        let area = 4 * half * half
        if half <= 1 {
            // At most 3 × 3 pixels: their values weighted by the area each covers (the same mean as the
            // table's, in 9 reads instead of 16).
            let i = min(Int(x0), width - 1), j = min(Int(y0), height - 1)
            let ax = min(x1, Double(i + 1)) - x0, bx = max(0, min(1, x1 - Double(i + 1))),
                cx = max(0, x1 - Double(i + 2))
            let ay = min(y1, Double(j + 1)) - y0, by = max(0, min(1, y1 - Double(j + 1))),
                cy = max(0, y1 - Double(j + 2))
            let i1 = min(i + 1, width - 1), i2 = min(i + 2, width - 1)
            @inline(__always) func row(_ r: Int) -> Double {
                let o = r * width
                return ax * Double(pixels[o + i]) + bx * Double(pixels[o + i1]) + cx * Double(pixels[o + i2])
            }
            var sum = ay * row(j)
            if by > 0 { sum += by * row(min(j + 1, height - 1)) }
            if cy > 0 { sum += cy * row(min(j + 2, height - 1)) }
            return Float(sum / area)
        }
        return Float((integral(x1, y1) - integral(x0, y1) - integral(x1, y0) + integral(x0, y0)) / area)
    }

    @inlinable @inline(__always) func integral(_ u: Double, _ v: Double) -> Double {
        let x0 = min(Int(u), width - 1), y0 = min(Int(v), height - 1)
        let fx = u - Double(x0), fy = v - Double(y0)
        let stride = width + 1
        let i = y0 * stride + x0
        let a = Double(sums[i]), b = Double(sums[i + 1]), c = Double(sums[i + stride]), d = Double(sums[i + stride + 1])
        let top = a + fx * (b - a)
        return top + fy * (c + fx * (d - c) - top)
    }
}
