import Foundation
import VPSGeometry

/// Posters, signs and pictures: the richest, most distinctive content of a venue.
extension Painter {
    /// Paints a poster filling the rectangle: a frame, then one of several layouts (abstract
    /// shapes, an infographic, a block code with a caption, a landscape picture).
    mutating func poster(_ canvas: inout TextureCanvas, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        let background: PaintColor
        switch int(0...9) {
        case 0...4: background = PaintColor.hsv(unit(), uniform(0...0.15), uniform(0.85...0.98))
        case 5...7: background = PaintColor.random(saturation: 0.5...0.9, value: 0.5...0.9, using: &rng)
        default: background = PaintColor.hsv(unit(), uniform(0...0.5), uniform(0.08...0.22))
        }
        canvas.fillRect(x0, y0, x1, y1, background)
        let frame = min(x1 - x0, y1 - y0) * uniform(0.015...0.04)
        canvas.strokeRect(x0, y0, x1, y1, line: frame, PaintColor.contrasting(with: background, using: &rng))
        let m = frame + min(x1 - x0, y1 - y0) * 0.05
        let (ix0, iy0, ix1, iy1) = (x0 + m, y0 + m, x1 - m, y1 - m)
        guard ix1 - ix0 > 0.05, iy1 - iy0 > 0.05 else { return }
        switch int(0...3) {
        case 0: abstractShapes(&canvas, ix0, iy0, ix1, iy1, background: background, count: int(10...24))
        case 1: infographic(&canvas, ix0, iy0, ix1, iy1, background: background)
        case 2: blockCode(&canvas, ix0, iy0, ix1, iy1, background: background)
        default: landscape(&canvas, ix0, iy0, ix1, iy1, background: background)
        }
    }

    /// Random rectangles (some rotated), discs, rings, triangles and strokes.
    mutating func abstractShapes(
        _ c: inout TextureCanvas, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, background: PaintColor,
        count: Int
    ) {
        let w = x1 - x0, h = y1 - y0, s = min(w, h)
        for _ in 0..<count {
            let color = PaintColor.contrasting(with: background, minContrast: 60, using: &rng)
            let size = s * uniform(0.06...0.3)
            let centre = Vec2(uniform(x0 + size / 2...x1 - size / 2), uniform(y0 + size / 2...y1 - size / 2))
            switch int(0...5) {
            case 0:
                let a = uniform(0.4...1) * size / 2, b = uniform(0.4...1) * size / 2
                c.fillRect(centre.x - a, centre.y - b, centre.x + a, centre.y + b, color)
            case 1:
                let angle = uniform(0...(.pi)), a = size / 2, b = uniform(0.3...1) * size / 2
                let u = Vec2(cos(angle), sin(angle)), v = Vec2(-sin(angle), cos(angle))
                c.fillPolygon(
                    [centre + a * u + b * v, centre - a * u + b * v, centre - a * u - b * v, centre + a * u - b * v],
                    color)
            case 2:
                c.fillDisc(centre, radius: size / 2, color)
            case 3:
                c.fillRing(centre, inner: size * uniform(0.2...0.35), outer: size / 2, color)
            case 4:
                var pts: [Vec2] = []
                let start = uniform(0...(2 * .pi))
                for k in 0..<3 {
                    let angle = start + Double(k) * 2 * .pi / 3 + uniform(-0.4...0.4)
                    pts.append(centre + size / 2 * Vec2(cos(angle), sin(angle)))
                }
                c.fillPolygon(pts, color)
            default:
                let angle = uniform(0...(.pi))
                let d = size / 2 * Vec2(cos(angle), sin(angle))
                c.stroke(centre - d, centre + d, width: max(size * 0.12, 2 * c.texelSize), color)
            }
        }
    }

    /// A title, a bar chart or a pie, and paragraphs of text.
    mutating func infographic(
        _ c: inout TextureCanvas, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, background: PaintColor
    ) {
        let ink = PaintColor.contrasting(with: background, minContrast: 110, using: &rng)
        let w = x1 - x0, h = y1 - y0
        let title = min(h * 0.1, w * 0.09)
        textLine(&c, at: Vec2(x0, y0), size: title, maxWidth: w, color: ink)
        var y = y0 + title * 1.6
        let chartHeight = h * uniform(0.3...0.45)
        if chance(0.5) {
            // Bar chart on an axis.
            let bars = int(4...9)
            let barWidth = w / Double(bars) * 0.7
            for k in 0..<bars {
                let bx = x0 + Double(k) * w / Double(bars)
                let bh = chartHeight * uniform(0.15...1)
                c.fillRect(
                    bx, y + chartHeight - bh, bx + barWidth, y + chartHeight,
                    PaintColor.contrasting(with: background, minContrast: 60, using: &rng))
            }
            c.fillRect(x0, y + chartHeight, x1, y + chartHeight + max(0.004, c.texelSize), ink)
        } else {
            // Pie chart beside a legend.
            let r = min(chartHeight, w * 0.5) / 2
            let centre = Vec2(x0 + r, y + chartHeight / 2)
            var angle = uniform(0...(2 * .pi))
            let slices = int(3...6)
            for _ in 0..<slices {
                let span = 2 * .pi / Double(slices) * uniform(0.5...1.5)
                let color = PaintColor.contrasting(with: background, minContrast: 50, using: &rng)
                let steps = max(2, Int(span / 0.15))
                for s in 0..<steps {
                    let a0 = angle + span * Double(s) / Double(steps), a1 = angle + span * Double(s + 1) / Double(steps)
                    c.fillPolygon(
                        [centre, centre + r * Vec2(cos(a0), sin(a0)), centre + r * Vec2(cos(a1), sin(a1))], color)
                }
                angle += span
            }
            let legend = x0 + 2.3 * r
            if x1 - legend > 0.05 {
                paragraph(&c, legend, y, x1, y + chartHeight, size: title * 0.45, color: ink)
            }
        }
        y += chartHeight + title
        paragraph(&c, x0, y, x1, y1, size: max(title * 0.35, 0.01), color: ink)
    }

    /// A square grid of random black and white cells (like a fiducial) and a caption.
    mutating func blockCode(
        _ c: inout TextureCanvas, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, background: PaintColor
    ) {
        let w = x1 - x0, h = y1 - y0
        let side = min(w, h * 0.7)
        let n = int(5...9)
        let cell = side / Double(n + 2)
        let ox = x0 + (w - side) / 2
        let dark = PaintColor.black, light = PaintColor.white
        c.fillRect(ox, y0, ox + side, y0 + side, dark)
        for i in 1...n {
            for j in 1...n where chance(0.5) {
                c.fillRect(
                    ox + Double(i) * cell, y0 + Double(j) * cell, ox + Double(i + 1) * cell,
                    y0 + Double(j + 1) * cell, light)
            }
        }
        let ink = PaintColor.contrasting(with: background, minContrast: 110, using: &rng)
        paragraph(&c, x0, y0 + side + cell, x1, y1, size: min(cell * 0.8, (y1 - y0 - side) / 3), color: ink)
    }

    /// A picture: sky gradient, noisy hills, a sun, a few trees or buildings.
    mutating func landscape(
        _ c: inout TextureCanvas, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, background: PaintColor
    ) {
        let sky0 = PaintColor.hsv(uniform(0.5...0.7), uniform(0.3...0.7), uniform(0.7...1))
        let sky1 = sky0.mixed(with: .white, 0.6)
        let ground = PaintColor.hsv(uniform(0.15...0.4), uniform(0.4...0.9), uniform(0.25...0.6))
        let noise = ValueNoise(seed: seed())
        let h = y1 - y0, horizon = uniform(0.45...0.7)
        c.paint(x0, y0, x1, y1) { x, y, _ in
            let t = (y - y0) / h
            let hill = horizon - 0.25 * noise.fractal(x / (0.3 * h), 0.5, octaves: 3)
            return t < hill
                ? sky0.mixed(with: sky1, t / hill) : ground.scaled(0.7 + 0.5 * noise.value(x / 0.02, y / 0.02))
        }
        c.fillDisc(
            Vec2(uniform(x0...x1), y0 + h * uniform(0.1...0.3)), radius: h * uniform(0.04...0.09),
            PaintColor(unit: 1, 0.9, 0.4))
        for _ in 0..<int(2...7) {
            let x = uniform(x0...x1), base = y0 + h * uniform(horizon...0.95)
            let height = h * uniform(0.1...0.35), width = height * uniform(0.2...0.6)
            if chance(0.5) {
                c.fillRect(x - width * 0.1, base - height * 0.4, x + width * 0.1, base, PaintColor(unit: 0.3, 0.2, 0.1))
                c.fillPolygon(
                    [
                        Vec2(x, base - height), Vec2(x - width / 2, base - height * 0.3),
                        Vec2(x + width / 2, base - height * 0.3),
                    ],
                    PaintColor.hsv(uniform(0.25...0.4), 0.8, uniform(0.2...0.5)))
            } else {
                let wall = PaintColor.random(saturation: 0.1...0.5, value: 0.5...0.9, using: &rng)
                c.fillRect(x - width / 2, base - height, x + width / 2, base, wall)
                let win = wall.luma > 128 ? PaintColor.black : PaintColor.white
                var wy = base - height * 0.9
                while wy < base - height * 0.15 {
                    c.fillRect(x - width * 0.3, wy, x - width * 0.05, wy + height * 0.08, win)
                    c.fillRect(x + width * 0.05, wy, x + width * 0.3, wy + height * 0.08, win)
                    wy += height * 0.18
                }
            }
        }
        _ = background
    }

    /// A framed picture: a wooden frame around a landscape or abstract painting.
    mutating func framedPicture(
        _ c: inout TextureCanvas, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double
    ) {
        let f = min(x1 - x0, y1 - y0) * uniform(0.05...0.09)
        wood(&c, x0, y0, x1, y1, base: PaintColor.hsv(uniform(0.05...0.1), uniform(0.4...0.7), uniform(0.3...0.7)))
        c.strokeRect(
            x0 + f * 0.8, y0 + f * 0.8, x1 - f * 0.8, y1 - f * 0.8, line: f * 0.2, PaintColor(unit: 0.9, 0.8, 0.5))
        if chance(0.6) {
            landscape(&c, x0 + f, y0 + f, x1 - f, y1 - f, background: .white)
        } else {
            let bg = PaintColor.random(saturation: 0.2...0.8, value: 0.3...0.95, using: &rng)
            c.fillRect(x0 + f, y0 + f, x1 - f, y1 - f, bg)
            abstractShapes(&c, x0 + f, y0 + f, x1 - f, y1 - f, background: bg, count: int(6...14))
        }
    }

    /// A wall clock: a white dial with a dark rim, twelve ticks and two hands.
    mutating func clock(_ c: inout TextureCanvas, centre: Vec2, radius r: Double) {
        c.fillDisc(centre, radius: r, .black)
        c.fillDisc(centre, radius: r * 0.9, .white)
        for k in 0..<12 {
            let a = Double(k) * .pi / 6
            let d = Vec2(cos(a), sin(a))
            c.stroke(centre + d * r * 0.7, centre + d * r * 0.85, width: r * (k % 3 == 0 ? 0.08 : 0.04), .black)
        }
        let h = uniform(0...(2 * .pi)), m = uniform(0...(2 * .pi))
        c.stroke(centre, centre + r * 0.5 * Vec2(cos(h), sin(h)), width: r * 0.08, .black)
        c.stroke(centre, centre + r * 0.75 * Vec2(cos(m), sin(m)), width: r * 0.05, .black)
    }

    /// A window: a sky-and-scenery view behind a frame with mullions.
    mutating func window(_ c: inout TextureCanvas, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        landscape(&c, x0, y0, x1, y1, background: .white)
        let frame = PaintColor(unit: 0.93, 0.93, 0.9)
        let f = 0.06
        c.strokeRect(x0, y0, x1, y1, line: f, frame)
        let cols = max(1, Int((x1 - x0) / 0.7)), rows = max(1, Int((y1 - y0) / 0.6))
        for i in 1..<max(cols, 1) + 1 where i < cols {
            let x = x0 + (x1 - x0) * Double(i) / Double(cols)
            c.fillRect(x - f / 3, y0, x + f / 3, y1, frame)
        }
        for j in 1..<max(rows, 1) + 1 where j < rows {
            let y = y0 + (y1 - y0) * Double(j) / Double(rows)
            c.fillRect(x0, y - f / 3, x1, y + f / 3, frame)
        }
    }
}
