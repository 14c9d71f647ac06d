import Foundation
import VPSGeometry

/// Paints the procedural content of venue textures: plaster, wood, text, posters, doors, floors.
///
/// Every choice draws from `rng`, so a venue's look is a pure function of its seed. Content is
/// described in metres (see `TextureCanvas`) and aims at what a feature matcher needs: many
/// high-contrast corners, and enough variety that no two places look alike (except where a venue
/// repeats itself on purpose).
struct Painter {
    /// A glyph: strokes between points of a 3 × 5 grid, drawn in a cell 0.6 wide and 1 high.
    struct Glyph {
        var strokes: [(Vec2, Vec2)]
    }

    /// The random stream every choice draws from.
    var rng: SplitMix64
    /// This venue's alphabet.
    let glyphs: [Glyph]

    /// A painter whose alphabet and choices derive from `seed`.
    init(seed: UInt64) {
        rng = SplitMix64(seed: seed)
        var glyphs: [Glyph] = []
        for _ in 0..<32 {
            var strokes: [(Vec2, Vec2)] = []
            let count = 2 + rng.nextInt(below: 3)
            var p = Vec2(Double(rng.nextInt(below: 3)), Double(rng.nextInt(below: 5)))
            for _ in 0..<count {
                var q = p
                while q == p { q = Vec2(Double(rng.nextInt(below: 3)), Double(rng.nextInt(below: 5))) }
                strokes.append((Vec2(p.x * 0.3, p.y * 0.25), Vec2(q.x * 0.3, q.y * 0.25)))
                // Continue from the end half the time (connected letters), else jump.
                p = rng.nextUnit() < 0.5 ? q : Vec2(Double(rng.nextInt(below: 3)), Double(rng.nextInt(below: 5)))
            }
            glyphs.append(Glyph(strokes: strokes))
        }
        self.glyphs = glyphs
    }

    // MARK: Random helpers

    mutating func unit() -> Double { rng.nextUnit() }

    mutating func uniform(_ r: ClosedRange<Double>) -> Double {
        r.lowerBound + (r.upperBound - r.lowerBound) * rng.nextUnit()
    }

    mutating func int(_ r: ClosedRange<Int>) -> Int { r.lowerBound + rng.nextInt(below: r.count) }

    mutating func chance(_ p: Double) -> Bool { rng.nextUnit() < p }

    mutating func seed() -> UInt64 { rng.next() }

    // MARK: Text

    /// Draws a line of random words starting at `origin` (top-left), glyph height `size`, until
    /// `maxWidth`; returns the width used.
    @discardableResult
    mutating func textLine(
        _ canvas: inout TextureCanvas, at origin: Vec2, size: Double, maxWidth: Double, color: PaintColor
    ) -> Double {
        let advance = size * 0.8, stroke = max(size * 0.13, canvas.texelSize)
        var x = 0.0
        while x + advance <= maxWidth {
            let word = min(int(2...8), Int((maxWidth - x) / advance))
            if word < 1 { break }
            for _ in 0..<word {
                let glyph = glyphs[rng.nextInt(below: glyphs.count)]
                for (a, b) in glyph.strokes {
                    canvas.stroke(
                        origin + Vec2(x, 0) + a * size, origin + Vec2(x, 0) + b * size, width: stroke, color)
                }
                x += advance
            }
            x += advance
        }
        return x
    }

    /// Fills a rectangle with lines of text.
    mutating func paragraph(
        _ canvas: inout TextureCanvas, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, size: Double,
        color: PaintColor
    ) {
        var y = y0
        while y + size <= y1 {
            let width = (x1 - x0) * (chance(0.2) ? uniform(0.3...0.9) : 1)
            textLine(&canvas, at: Vec2(x0, y), size: size, maxWidth: width, color: color)
            y += size * 1.7
        }
    }

    // MARK: Materials

    /// Plaster: `base` with soft blotches and a fine grain.
    mutating func plaster(_ canvas: inout TextureCanvas, base: PaintColor) {
        canvas.paint(0, 0, canvas.metricWidth, canvas.metricHeight) { _, _, _ in base }
        let noise = ValueNoise(seed: seed())
        canvas.modulate { x, y in
            0.93 + 0.1 * noise.fractal(x / 0.7, y / 0.7, octaves: 3) + 0.04 * noise.value(x / 0.012, y / 0.012)
        }
    }

    /// Wood with its grain along x: `base` modulated by stretched noise and growth rings.
    mutating func wood(
        _ canvas: inout TextureCanvas, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, base: PaintColor,
        alongY: Bool = false
    ) {
        let noise = ValueNoise(seed: seed())
        let ringScale = uniform(25...60)
        canvas.paint(x0, y0, x1, y1) { x, y, _ in
            let (a, b) = alongY ? (y, x) : (x, y)
            let n = noise.fractal(a / 0.4, b / 0.03, octaves: 3)
            let ring = 0.5 + 0.5 * sin((b + 0.08 * n) * ringScale * 2 * .pi / 2)
            return base.scaled(0.72 + 0.22 * n + 0.16 * ring)
        }
    }

    /// Fabric: `base` with a fine weave and soft noise.
    mutating func fabric(
        _ canvas: inout TextureCanvas, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, base: PaintColor
    ) {
        let noise = ValueNoise(seed: seed())
        canvas.paint(x0, y0, x1, y1) { x, y, _ in
            let weave = ((Int(x / 0.006) + Int(y / 0.006)) & 1) == 0 ? 1.0 : 0.9
            return base.scaled(weave * (0.8 + 0.35 * noise.fractal(x / 0.2, y / 0.2, octaves: 2)))
        }
    }

    /// Brushed metal: a light grey with fine streaks along x.
    mutating func metal(_ canvas: inout TextureCanvas, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        let noise = ValueNoise(seed: seed())
        let base = PaintColor(unit: 0.62, 0.63, 0.66)
        canvas.paint(x0, y0, x1, y1) { x, y, _ in
            base.scaled(0.85 + 0.3 * noise.value(x / 0.3, y / 0.002))
        }
    }
}
