import VPSGeometry

/// A paintable texture in metric coordinates: shapes are given in metres, rasterized at `texelSize`.
///
/// Canvas coordinates: x to the right, y down, origin at the top-left corner; texel (i, j) has its
/// centre at ((i + 0.5)·s, (j + 0.5)·s) for texel size s and is painted when that centre lies inside
/// a shape. Describing content in metres keeps a venue's look the same at every texture resolution.
struct TextureCanvas {
    /// Size in texels.
    let width: Int, height: Int
    /// Size in metres.
    let metricWidth: Double, metricHeight: Double
    /// Edge length of one texel, metres.
    let texelSize: Double
    /// Packed `0x00BBGGRR` texels, row-major.
    var texels: [UInt32]

    /// A canvas covering `metricWidth × metricHeight` metres, filled with `color`.
    init(metricWidth: Double, metricHeight: Double, texelSize: Double, color: PaintColor) {
        self.metricWidth = metricWidth
        self.metricHeight = metricHeight
        self.texelSize = texelSize
        width = max(1, Int((metricWidth / texelSize).rounded(.up)))
        height = max(1, Int((metricHeight / texelSize).rounded(.up)))
        texels = [UInt32](repeating: color.packed, count: width * height)
    }

    /// The finished texture (with its mip pyramid).
    var texture: Texture { Texture(width: width, height: height, packed: texels) }

    /// Rows whose texel centres lie in [y0, y1).
    private func rows(_ y0: Double, _ y1: Double) -> Range<Int> {
        let a = max(0, Int((y0 / texelSize - 0.5).rounded(.up)))
        let b = min(height, Int((y1 / texelSize - 0.5).rounded(.up)))
        return a..<max(a, b)
    }

    /// Columns whose texel centres lie in [x0, x1).
    private func columns(_ x0: Double, _ x1: Double) -> Range<Int> {
        let a = max(0, Int((x0 / texelSize - 0.5).rounded(.up)))
        let b = min(width, Int((x1 / texelSize - 0.5).rounded(.up)))
        return a..<max(a, b)
    }

    /// Centre of texel row `j` (or column) in metres.
    @inline(__always) private func centre(_ i: Int) -> Double { (Double(i) + 0.5) * texelSize }

    /// Paints an axis-aligned rectangle.
    mutating func fillRect(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ color: PaintColor) {
        let c = color.packed
        let cols = columns(min(x0, x1), max(x0, x1))
        for j in rows(min(y0, y1), max(y0, y1)) {
            let base = j * width
            for i in cols { texels[base + i] = c }
        }
    }

    /// Paints a rectangle outline of line width `line` inside the rectangle.
    mutating func strokeRect(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, line: Double, _ color: PaintColor)
    {
        fillRect(x0, y0, x1, y0 + line, color)
        fillRect(x0, y1 - line, x1, y1, color)
        fillRect(x0, y0, x0 + line, y1, color)
        fillRect(x1 - line, y0, x1, y1, color)
    }

    /// Paints a convex polygon (vertices in either winding order).
    mutating func fillPolygon(_ points: [Vec2], _ color: PaintColor) {
        guard points.count >= 3 else { return }
        let c = color.packed
        let ys = points.map(\.y)
        for j in rows(ys.min()!, ys.max()!) {
            let yc = centre(j)
            var lo = Double.infinity, hi = -Double.infinity
            for k in 0..<points.count {
                var a = points[k], b = points[(k + 1) % points.count]
                if a.y > b.y { swap(&a, &b) }
                guard a.y <= yc, yc < b.y else { continue }
                let x = a.x + (yc - a.y) / (b.y - a.y) * (b.x - a.x)
                lo = min(lo, x)
                hi = max(hi, x)
            }
            guard lo < hi else { continue }
            let base = j * width
            for i in columns(lo, hi) { texels[base + i] = c }
        }
    }

    /// Paints a straight stroke of width `lineWidth` from `a` to `b` (square ends).
    mutating func stroke(_ a: Vec2, _ b: Vec2, width lineWidth: Double, _ color: PaintColor) {
        let d = b - a
        let len = d.norm
        guard len > 0 else { return }
        let t = d / len * (lineWidth / 2)
        let n = Vec2(-t.y, t.x)
        fillPolygon([a - t + n, b + t + n, b + t - n, a - t - n], color)
    }

    /// Paints a filled disc.
    mutating func fillDisc(_ centre: Vec2, radius: Double, _ color: PaintColor) {
        fillRing(centre, inner: 0, outer: radius, color)
    }

    /// Paints an annulus between radii `inner` and `outer`.
    mutating func fillRing(_ c: Vec2, inner: Double, outer: Double, _ color: PaintColor) {
        let packed = color.packed
        for j in rows(c.y - outer, c.y + outer) {
            let dy = centre(j) - c.y
            let ho = (outer * outer - dy * dy).squareRoot()
            guard ho > 0 else { continue }
            let base = j * width
            if inner > abs(dy) {
                let hi = (inner * inner - dy * dy).squareRoot()
                for i in columns(c.x - ho, c.x - hi) { texels[base + i] = packed }
                for i in columns(c.x + hi, c.x + ho) { texels[base + i] = packed }
            } else {
                for i in columns(c.x - ho, c.x + ho) { texels[base + i] = packed }
            }
        }
    }

    /// Replaces every texel centre in the rectangle with `paint(x, y, current)` (metres).
    mutating func paint(
        _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ paint: (Double, Double, PaintColor) -> PaintColor
    ) {
        let cols = columns(x0, x1)
        for j in rows(y0, y1) {
            let y = centre(j), base = j * width
            for i in cols {
                texels[base + i] = paint(centre(i), y, PaintColor(packed: texels[base + i])).packed
            }
        }
    }

    /// Multiplies every channel of the rectangle's texels by `factor(x, y)` (metres).
    mutating func modulate(
        _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ factor: (Double, Double) -> Double
    ) {
        paint(x0, y0, x1, y1) { x, y, c in c.scaled(factor(x, y)) }
    }

    /// Multiplies the whole canvas by `factor(x, y)`.
    mutating func modulate(_ factor: (Double, Double) -> Double) {
        modulate(0, 0, metricWidth, metricHeight, factor)
    }
}
