/// Simple raster drawing for plots and debug images.
///
/// Coordinates are integer pixel indices (column x, row y, y pointing down). Everything is clipped
/// to the image: shapes partly or entirely outside, huge coordinates and degenerate sizes never
/// crash, they just draw what is visible (possibly nothing). Drawing overwrites pixels (no blending).
extension RGBImage {
    /// The colour of pixel (x, y), which must lie inside the image.
    public subscript(x: Int, y: Int) -> RGB {
        get {
            let i = 3 * (y * width + x)
            return RGB(r: pixels[i], g: pixels[i + 1], b: pixels[i + 2])
        }
        set {
            let i = 3 * (y * width + x)
            pixels[i] = newValue.r
            pixels[i + 1] = newValue.g
            pixels[i + 2] = newValue.b
        }
    }

    /// The colour of pixel (x, y), or nil when it lies outside the image.
    ///
    /// - Parameters:
    ///   - x: column.
    ///   - y: row.
    /// - Returns: the colour, or nil outside the image.
    public func color(atX x: Int, y: Int) -> RGB? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        return self[x, y]
    }

    /// Sets pixel (x, y) when it lies inside the image; does nothing otherwise.
    ///
    /// - Parameters:
    ///   - x: column.
    ///   - y: row.
    ///   - color: the new colour.
    /// - Returns: true when the pixel was inside the image and has been set.
    @discardableResult
    public mutating func setPixel(x: Int, y: Int, to color: RGB) -> Bool {
        guard x >= 0, y >= 0, x < width, y < height else { return false }
        self[x, y] = color
        return true
    }

    /// Fills the rectangle of columns `x..<x+width` and rows `y..<y+height` (clipped).
    ///
    /// - Parameters:
    ///   - x: left column.
    ///   - y: top row.
    ///   - width: width in pixels (nothing is drawn when not positive).
    ///   - height: height in pixels (nothing is drawn when not positive).
    ///   - color: the fill colour.
    /// - Complexity: O(visible area).
    public mutating func fillRectangle(x: Int, y: Int, width rectWidth: Int, height rectHeight: Int, color: RGB) {
        let columns = Self.clip(start: x, length: rectWidth, limit: width)
        for row in Self.clip(start: y, length: rectHeight, limit: height) {
            fillRow(row, columns: columns, color: color)
        }
    }

    /// Draws the outline of a rectangle, `thickness` pixels wide, inside the rectangle's bounds.
    ///
    /// - Parameters:
    ///   - x: left column.
    ///   - y: top row.
    ///   - width: width in pixels (nothing is drawn when not positive).
    ///   - height: height in pixels (nothing is drawn when not positive).
    ///   - color: the line colour.
    ///   - thickness: border width in pixels, at least 1 (a border that meets itself fills the rectangle).
    /// - Complexity: O(visible area of the border).
    public mutating func drawRectangle(
        x: Int, y: Int, width rectWidth: Int, height rectHeight: Int, color: RGB, thickness: Int = 1
    ) {
        guard rectWidth > 0, rectHeight > 0 else { return }
        let x = Self.tame(x)
        let y = Self.tame(y)
        let w = Self.tame(rectWidth)
        let h = Self.tame(rectHeight)
        let t = min(max(thickness, 1), max(w, h))
        if 2 * t >= w || 2 * t >= h {
            fillRectangle(x: x, y: y, width: w, height: h, color: color)
            return
        }
        fillRectangle(x: x, y: y, width: w, height: t, color: color)
        fillRectangle(x: x, y: y + h - t, width: w, height: t, color: color)
        fillRectangle(x: x, y: y + t, width: t, height: h - 2 * t, color: color)
        fillRectangle(x: x + w - t, y: y + t, width: t, height: h - 2 * t, color: color)
    }

    /// Draws a straight line segment between two pixels, both included (Bresenham).
    ///
    /// With `thickness` n > 1 each step of the line paints a span of n pixels across the line's
    /// major axis (vertical spans for lines closer to horizontal, horizontal spans otherwise).
    ///
    /// - Parameters:
    ///   - start: the first end point.
    ///   - end: the other end point.
    ///   - color: the line colour.
    ///   - thickness: line width in pixels, at least 1 (values below 1 draw nothing).
    /// - Complexity: O(visible length × thickness).
    public mutating func drawLine(
        from start: (x: Int, y: Int), to end: (x: Int, y: Int), color: RGB, thickness: Int = 1
    ) {
        guard !isEmpty, thickness >= 1 else { return }
        let t = min(thickness, 2 * (width + height) + 1)
        let before = (t - 1) / 2
        let after = t / 2
        // Clip to the image grown by the span's reach, so the loop only walks near-visible steps.
        let margin = Double(after + 1)
        guard
            let clipped = Self.clipSegment(
                (Double(start.x), Double(start.y)), (Double(end.x), Double(end.y)),
                minimum: (-margin, -margin), maximum: (Double(width - 1) + margin, Double(height - 1) + margin))
        else { return }
        var x = Int(clipped.0.x.rounded())
        var y = Int(clipped.0.y.rounded())
        let endX = Int(clipped.1.x.rounded())
        let endY = Int(clipped.1.y.rounded())
        let dx = abs(endX - x)
        let dy = -abs(endY - y)
        let stepX = x < endX ? 1 : -1
        let stepY = y < endY ? 1 : -1
        let xMajor = dx >= -dy
        var error = dx + dy
        while true {
            if xMajor {
                if x >= 0 && x < width {
                    for row in Self.clip(start: y - before, length: t, limit: height) { self[x, row] = color }
                }
            } else if y >= 0 && y < height {
                fillRow(y, columns: Self.clip(start: x - before, length: t, limit: width), color: color)
            }
            if x == endX && y == endY { break }
            let doubled = 2 * error
            if doubled >= dy {
                error += dy
                x += stepX
            }
            if doubled <= dx {
                error += dx
                y += stepY
            }
        }
    }

    /// Draws connected line segments through `points`.
    ///
    /// - Parameters:
    ///   - points: the vertices in order (fewer than two draw at most one pixel).
    ///   - color: the line colour.
    ///   - thickness: line width in pixels, at least 1.
    ///   - closed: also join the last vertex to the first.
    /// - Complexity: O(total visible length × thickness).
    public mutating func drawPolyline(
        _ points: [(x: Int, y: Int)], color: RGB, thickness: Int = 1, closed: Bool = false
    ) {
        guard let first = points.first else { return }
        if points.count == 1 {
            drawLine(from: first, to: first, color: color, thickness: thickness)
            return
        }
        for i in 1..<points.count {
            drawLine(from: points[i - 1], to: points[i], color: color, thickness: thickness)
        }
        if closed, let last = points.last {
            drawLine(from: last, to: first, color: color, thickness: thickness)
        }
    }

    /// Fills the disc of pixels whose distance to `center` is at most `radius`.
    ///
    /// - Parameters:
    ///   - center: the centre pixel.
    ///   - radius: radius in pixels (0 paints the centre only; negative or non-finite paints nothing).
    ///   - color: the fill colour.
    /// - Complexity: O(visible area of the disc).
    public mutating func fillDisc(center: (x: Int, y: Int), radius: Double, color: RGB) {
        guard !isEmpty, radius.isFinite, radius >= 0 else { return }
        forEachRowOfRing(center: center, outer: radius, inner: nil) { row, columns in
            fillRow(row, columns: columns, color: color)
        }
    }

    /// Draws a circle outline: the pixels whose distance to `center` is within `thickness / 2`
    /// of `radius`.
    ///
    /// - Parameters:
    ///   - center: the centre pixel.
    ///   - radius: radius in pixels (negative or non-finite paints nothing).
    ///   - color: the line colour.
    ///   - thickness: ring width in pixels, at least 1.
    /// - Complexity: O(visible area of the ring's bounding rows).
    public mutating func drawCircle(center: (x: Int, y: Int), radius: Double, color: RGB, thickness: Int = 1) {
        guard !isEmpty, radius.isFinite, radius >= 0, thickness >= 1 else { return }
        let half = Double(min(thickness, 2 * (width + height) + 1)) / 2
        let inner = radius - half
        forEachRowOfRing(center: center, outer: radius + half, inner: inner > 0 ? inner : nil) { row, columns in
            fillRow(row, columns: columns, color: color)
        }
    }

    // MARK: Implementation

    /// Paints `columns` (already clipped) of `row` (inside the image).
    mutating func fillRow(_ row: Int, columns: Range<Int>, color: RGB) {
        guard !columns.isEmpty else { return }
        precondition(hasConsistentStorage, "pixel count must match the image size")
        pixels.withUnsafeMutableBufferPointer { buffer in
            for column in columns {
                let i = 3 * (row * width + column)
                buffer[i] = color.r
                buffer[i + 1] = color.g
                buffer[i + 2] = color.b
            }
        }
    }

    /// Calls `body` with each visible row and its visible column ranges of the pixels at distance
    /// in [inner, outer] from `center` (a full disc when `inner` is nil).
    func forEachRowOfRing(
        center: (x: Int, y: Int), outer: Double, inner: Double?, _ body: (Int, Range<Int>) -> Void
    ) {
        let centerX = Double(center.x)
        let centerY = Double(center.y)
        let reach = outer.rounded(.down)
        let top = max(0, centerY - reach)
        let bottom = min(Double(height - 1), centerY + reach)
        guard top <= bottom else { return }
        for row in Int(top)...Int(bottom) {
            let dy = Double(row) - centerY
            let outerSquared = outer * outer - dy * dy
            guard outerSquared >= 0 else { continue }
            let outerHalf = outerSquared.squareRoot().rounded(.down)
            let innerSquared = inner.map { $0 * $0 - dy * dy } ?? -1
            if innerSquared <= 0 {
                body(row, Self.clip(from: centerX - outerHalf, through: centerX + outerHalf, limit: width))
            } else {
                // Columns with |dx| ≥ ceil(√innerSquared) belong to the ring.
                let innerHalf = innerSquared.squareRoot().rounded(.up)
                guard innerHalf <= outerHalf else { continue }
                body(row, Self.clip(from: centerX - outerHalf, through: centerX - innerHalf, limit: width))
                body(row, Self.clip(from: centerX + innerHalf, through: centerX + outerHalf, limit: width))
            }
        }
    }

    /// A coordinate or size limited to ±2⁴⁰, far beyond any image, so sums cannot overflow.
    static func tame(_ value: Int) -> Int { min(max(value, -(1 << 40)), 1 << 40) }

    /// The part of `start..<start+length` inside `0..<limit`.
    static func clip(start: Int, length: Int, limit: Int) -> Range<Int> {
        guard length > 0 else { return 0..<0 }
        let (end, overflow) = start.addingReportingOverflow(length)
        let lower = max(start, 0)
        let upper = overflow ? limit : min(end, limit)
        return lower < upper ? lower..<upper : 0..<0
    }

    /// The integers of `lower...upper` (given as exact doubles) inside `0..<limit`.
    static func clip(from lower: Double, through upper: Double, limit: Int) -> Range<Int> {
        let first = max(lower, 0)
        let last = min(upper, Double(limit - 1))
        guard first <= last else { return 0..<0 }
        return Int(first)..<(Int(last) + 1)
    }

    /// Liang–Barsky clipping of a segment to an axis-aligned box; nil when nothing is inside.
    /// End points inside the box are returned unchanged.
    static func clipSegment(
        _ start: (x: Double, y: Double), _ end: (x: Double, y: Double), minimum: (x: Double, y: Double),
        maximum: (x: Double, y: Double)
    ) -> ((x: Double, y: Double), (x: Double, y: Double))? {
        let dx = end.x - start.x
        let dy = end.y - start.y
        var enter = 0.0
        var exit = 1.0
        let edges = [
            (-dx, start.x - minimum.x), (dx, maximum.x - start.x), (-dy, start.y - minimum.y),
            (dy, maximum.y - start.y),
        ]
        for (direction, distance) in edges {
            if direction == 0 {
                if distance < 0 { return nil }
                continue
            }
            let ratio = distance / direction
            if direction < 0 {
                if ratio > exit { return nil }
                enter = max(enter, ratio)
            } else {
                if ratio < enter { return nil }
                exit = min(exit, ratio)
            }
        }
        let clippedStart = enter == 0 ? start : (start.x + enter * dx, start.y + enter * dy)
        let clippedEnd = exit == 1 ? end : (start.x + exit * dx, start.y + exit * dy)
        return (clippedStart, clippedEnd)
    }
}
