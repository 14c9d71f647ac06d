import Foundation
import VPSGeometry

/// Wall-scale decoration: wallpaper, wainscoting, mosaic bands, notice boards and whiteboards.
extension Painter {
    /// Wallpaper: a base colour with a jittered grid of small motifs in a few colours.
    mutating func wallpaper(_ c: inout TextureCanvas) {
        let base = PaintColor.hsv(unit(), uniform(0.1...0.4), uniform(0.6...0.9))
        plaster(&c, base: base)
        let palette = (0..<3).map { _ in PaintColor.contrasting(with: base, minContrast: 45, using: &rng) }
        let cell = uniform(0.12...0.25)
        let style = int(0...2)
        var y = cell / 2
        var row = 0
        while y < c.metricHeight {
            var x = (row % 2 == 0 ? cell / 2 : cell)
            while x < c.metricWidth {
                let p = Vec2(x + uniform(-0.15...0.15) * cell, y + uniform(-0.15...0.15) * cell)
                let color = palette[rng.nextInt(below: palette.count)]
                let r = cell * uniform(0.12...0.25)
                switch style {
                case 0:
                    c.fillPolygon([p + Vec2(0, -r), p + Vec2(r, 0), p + Vec2(0, r), p + Vec2(-r, 0)], color)
                case 1:
                    c.fillRing(p, inner: r * 0.5, outer: r, color)
                default:
                    let a = uniform(0...(.pi))
                    c.stroke(p - r * Vec2(cos(a), sin(a)), p + r * Vec2(cos(a), sin(a)), width: r * 0.5, color)
                    c.fillDisc(p + r * Vec2(-sin(a), cos(a)), radius: r * 0.3, color)
                }
                x += cell
            }
            y += cell * 0.87
            row += 1
        }
    }

    /// Wainscoting: the lower part of the wall in another colour, with raised panels and a rail.
    mutating func wainscot(_ c: inout TextureCanvas) {
        let top = c.metricHeight - uniform(0.85...1.1)
        let base = PaintColor.hsv(unit(), uniform(0.1...0.6), uniform(0.3...0.85))
        if chance(0.5) {
            wood(&c, 0, top, c.metricWidth, c.metricHeight, base: base, alongY: true)
        } else {
            c.fillRect(0, top, c.metricWidth, c.metricHeight, base)
        }
        c.fillRect(0, top - 0.03, c.metricWidth, top + 0.01, base.scaled(0.6))
        c.fillRect(0, top - 0.035, c.metricWidth, top - 0.028, base.scaled(1.3))
        let panel = uniform(0.5...0.9)
        var x = 0.08
        while x + panel < c.metricWidth {
            c.strokeRect(x, top + 0.1, x + panel - 0.1, c.metricHeight - 0.18, line: 0.018, base.scaled(0.55))
            c.strokeRect(
                x + 0.018, top + 0.118, x + panel - 0.118, c.metricHeight - 0.198, line: 0.01, base.scaled(1.35))
            x += panel
        }
    }

    /// A band of small square tiles in random colours across the wall at a random height.
    mutating func mosaicBand(_ c: inout TextureCanvas) {
        let tile = uniform(0.04...0.08)
        let rows = int(2...5)
        let y0 = c.metricHeight - uniform(0.9...1.5)
        let palette = (0..<int(3...6)).map { _ in PaintColor.random(saturation: 0.2...1, value: 0.2...1, using: &rng) }
        let grout = PaintColor(unit: 0.85, 0.85, 0.82)
        c.fillRect(0, y0, c.metricWidth, y0 + Double(rows) * tile, grout)
        for j in 0..<rows {
            var x = 0.0
            while x < c.metricWidth {
                c.fillRect(
                    x + 0.003, y0 + Double(j) * tile + 0.003, x + tile - 0.003, y0 + Double(j + 1) * tile - 0.003,
                    palette[rng.nextInt(below: palette.count)])
                x += tile
            }
        }
    }

    /// A cork notice board with pinned sheets of text, photos and notes, some of them tilted.
    mutating func noticeBoard(_ c: inout TextureCanvas, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        let cork = PaintColor(unit: 0.72, 0.55, 0.36)
        let noise = ValueNoise(seed: seed())
        c.paint(x0, y0, x1, y1) { x, y, _ in
            cork.scaled(0.8 + 0.4 * noise.value(x / 0.004, y / 0.004))
        }
        wood(&c, x0, y0, x1, y0 + 0.03, base: PaintColor.hsv(0.08, 0.5, 0.5))
        wood(&c, x0, y1 - 0.03, x1, y1, base: PaintColor.hsv(0.08, 0.5, 0.5))
        wood(&c, x0, y0, x0 + 0.03, y1, base: PaintColor.hsv(0.08, 0.5, 0.5), alongY: true)
        wood(&c, x1 - 0.03, y0, x1, y1, base: PaintColor.hsv(0.08, 0.5, 0.5), alongY: true)
        let area = (x1 - x0) * (y1 - y0)
        for _ in 0..<Int(area / 0.035) {
            let w = uniform(0.1...0.25), h = w * uniform(0.7...1.45)
            let centre = Vec2(
                uniform(x0 + 0.04 + w / 2...max(x0 + 0.05 + w / 2, x1 - 0.04 - w / 2)),
                uniform(y0 + 0.04 + h / 2...max(y0 + 0.05 + h / 2, y1 - 0.04 - h / 2)))
            let paper =
                chance(0.6) ? PaintColor.white : PaintColor.random(saturation: 0.2...0.6, value: 0.8...1, using: &rng)
            let angle = chance(0.5) ? 0 : uniform(-0.25...0.25)
            let ax = Vec2(cos(angle), sin(angle)) * (w / 2), ay = Vec2(-sin(angle), cos(angle)) * (h / 2)
            c.fillPolygon([centre - ax - ay, centre + ax - ay, centre + ax + ay, centre - ax + ay], paper)
            if angle == 0 {
                let ink = PaintColor.contrasting(with: paper, minContrast: 110, using: &rng)
                let (px0, py0) = (centre.x - w / 2 + 0.012, centre.y - h / 2 + 0.012)
                if chance(0.3) {
                    abstractShapes(
                        &c, px0, py0, centre.x + w / 2 - 0.012, centre.y + h / 2 - 0.012, background: paper,
                        count: int(3...6))
                } else {
                    textLine(&c, at: Vec2(px0, py0), size: 0.022, maxWidth: w - 0.024, color: ink)
                    paragraph(
                        &c, px0, py0 + 0.04, centre.x + w / 2 - 0.012, centre.y + h / 2 - 0.012, size: 0.008,
                        color: ink)
                }
            }
            c.fillDisc(centre - ay * 0.85, radius: 0.007, PaintColor.random(value: 0.6...1, using: &rng))
        }
    }

    /// A whiteboard with marker text, boxes, arrows and a diagram.
    mutating func whiteboard(_ c: inout TextureCanvas, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        c.fillRect(x0, y0, x1, y1, PaintColor(unit: 0.97, 0.97, 0.97))
        c.strokeRect(x0, y0, x1, y1, line: 0.025, PaintColor(unit: 0.7, 0.72, 0.75))
        c.fillRect(x0 + 0.1, y1 - 0.01, x1 - 0.1, y1 + 0.03, PaintColor(unit: 0.6, 0.62, 0.65))
        let markers = [
            PaintColor(unit: 0.1, 0.1, 0.12), PaintColor(unit: 0.1, 0.2, 0.75), PaintColor(unit: 0.8, 0.1, 0.1),
            PaintColor(unit: 0.05, 0.5, 0.15),
        ]
        var y = y0 + 0.06
        while y < y1 - 0.12 {
            let ink = markers[rng.nextInt(below: markers.count)]
            if chance(0.3) {
                // A row of boxes joined by arrows.
                var x = x0 + 0.06
                let bh = uniform(0.06...0.12)
                while x < x1 - 0.3 {
                    let bw = uniform(0.12...0.3)
                    guard x + bw < x1 - 0.05 else { break }
                    c.strokeRect(x, y, x + bw, y + bh, line: 0.006, ink)
                    textLine(&c, at: Vec2(x + 0.015, y + bh / 2 - 0.015), size: 0.03, maxWidth: bw - 0.03, color: ink)
                    let ax = x + bw, ay = y + bh / 2
                    c.stroke(Vec2(ax, ay), Vec2(ax + 0.08, ay), width: 0.005, ink)
                    c.fillPolygon([Vec2(ax + 0.08, ay - 0.015), Vec2(ax + 0.1, ay), Vec2(ax + 0.08, ay + 0.015)], ink)
                    x += bw + 0.1
                }
                y += bh + 0.06
            } else {
                textLine(
                    &c, at: Vec2(x0 + 0.06 + uniform(0...0.2), y), size: uniform(0.03...0.06),
                    maxWidth: (x1 - x0 - 0.3) * uniform(0.4...1), color: ink)
                y += uniform(0.07...0.11)
            }
        }
    }
}
