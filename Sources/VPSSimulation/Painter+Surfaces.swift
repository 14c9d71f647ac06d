import Foundation
import VPSGeometry

/// A rectangle of a wall texture that gets special content, in canvas metres (y down from the top).
struct WallFeature {
    enum Kind {
        /// A closed door painted on the wall.
        case door
        /// A real opening (the geometry leaves a hole); the texture gets a trim around it.
        case opening
        /// A painted window.
        case window
    }
    var kind: Kind
    var x0: Double, y0: Double, x1: Double, y1: Double
}

/// Walls, floors, ceilings and furniture faces.
extension Painter {
    /// A wall texture `width × height` metres seen from the room: plaster, a skirting board,
    /// `features`, then posters and small fittings placed where there is room.
    mutating func wall(
        width: Double, height: Double, texelSize: Double, features: [WallFeature], posters: ClosedRange<Int>
    ) -> TextureCanvas {
        var c = TextureCanvas(metricWidth: width, metricHeight: height, texelSize: texelSize, color: .white)
        if chance(0.35) {
            wallpaper(&c)
        } else {
            plaster(&c, base: PaintColor.hsv(unit(), uniform(0.03...0.3), uniform(0.65...0.93)))
        }
        switch int(0...4) {
        case 0, 1: wainscot(&c)
        case 2: mosaicBand(&c)
        default: break
        }
        let skirting = chance(0.5) ? PaintColor(unit: 0.95, 0.95, 0.93) : PaintColor.hsv(0.08, 0.5, uniform(0.2...0.4))
        c.fillRect(0, height - uniform(0.07...0.11), width, height, skirting)
        c.fillRect(0, height - 0.012, width, height, skirting.scaled(0.6))
        var reserved: [(Double, Double, Double, Double)] = []
        for f in features {
            switch f.kind {
            case .door: door(&c, f.x0, f.y0, f.x1, f.y1)
            case .opening:
                let trim = PaintColor.hsv(uniform(0.05...0.12), uniform(0.2...0.6), uniform(0.3...0.9))
                c.fillRect(f.x0 - 0.07, f.y0 - 0.07, f.x1 + 0.07, f.y1, trim)
                c.strokeRect(f.x0 - 0.07, f.y0 - 0.07, f.x1 + 0.07, f.y1 + 0.07, line: 0.012, trim.scaled(0.6))
            case .window: window(&c, f.x0, f.y0, f.x1, f.y1)
            }
            reserved.append((f.x0 - 0.25, f.y0 - 0.2, f.x1 + 0.25, f.y1))
            if f.kind == .door || f.kind == .opening {
                // A light switch beside the door.
                let sx = f.x1 + 0.15, sy = height - 1.1
                if sx + 0.08 < width {
                    c.fillRect(sx, sy, sx + 0.08, sy + 0.08, PaintColor(unit: 0.97, 0.97, 0.95))
                    c.strokeRect(sx, sy, sx + 0.08, sy + 0.08, line: 0.004, PaintColor(unit: 0.6, 0.6, 0.6))
                    c.fillRect(sx + 0.03, sy + 0.02, sx + 0.05, sy + 0.06, PaintColor(unit: 0.75, 0.75, 0.75))
                }
            }
        }
        func free(_ r: (Double, Double, Double, Double)) -> Bool {
            guard r.0 > 0.1, r.2 < width - 0.1, r.1 > 0.15, r.3 < height - 0.3 else { return false }
            return !reserved.contains {
                r.0 < $0.2 + 0.08 && $0.0 < r.2 + 0.08 && r.1 < $0.3 + 0.08 && $0.1 < r.3 + 0.08
            }
        }
        // Boards first (they are large), then posters wherever there is room.
        for _ in 0..<max(1, Int((width / 4).rounded())) where chance(0.7) {
            for _ in 0..<30 {
                let w = uniform(1.0...2.0), h = uniform(0.7...1.1)
                let x = uniform(0...max(0.01, width - w)), centreHeight = uniform(1.3...1.6)
                let r = (x, height - centreHeight - h / 2, x + w, height - centreHeight + h / 2)
                guard free(r) else { continue }
                reserved.append(r)
                if chance(0.5) { noticeBoard(&c, r.0, r.1, r.2, r.3) } else { whiteboard(&c, r.0, r.1, r.2, r.3) }
                break
            }
        }
        var placed = 0
        let target = int(posters)
        var attempts = 0
        while placed < target && attempts < 400 {
            attempts += 1
            let w = uniform(0.3...1.3), h = min(1.4, w * uniform(0.6...1.5))
            let x = uniform(0...max(0.01, width - w)), centreHeight = uniform(0.95...1.95)
            let r = (x, height - centreHeight - h / 2, x + w, height - centreHeight + h / 2)
            guard free(r) else { continue }
            reserved.append(r)
            placed += 1
            if chance(0.2) { framedPicture(&c, r.0, r.1, r.2, r.3) } else { poster(&c, r.0, r.1, r.2, r.3) }
        }
        // A clock or a notice, then sockets near the floor.
        for _ in 0..<12 {
            let r = uniform(0.12...0.2), x = uniform(r...max(r + 0.01, width - r)), y = height - uniform(1.9...2.2)
            let box = (x - r, y - r, x + r, y + r)
            if free(box) {
                reserved.append(box)
                clock(&c, centre: Vec2(x, y), radius: r)
                break
            }
        }
        for _ in 0..<int(1...3) {
            let x = uniform(0.2...max(0.3, width - 0.3)), y = height - 0.35
            if !reserved.contains(where: { x < $0.2 && $0.0 < x + 0.09 && $0.3 > y }) {
                c.fillRect(x, y, x + 0.09, y + 0.09, PaintColor(unit: 0.96, 0.96, 0.94))
                c.fillDisc(Vec2(x + 0.045, y + 0.045), radius: 0.025, PaintColor(unit: 0.5, 0.5, 0.5))
                c.fillDisc(Vec2(x + 0.033, y + 0.045), radius: 0.005, .black)
                c.fillDisc(Vec2(x + 0.057, y + 0.045), radius: 0.005, .black)
            }
        }
        return c
    }

    /// A closed door: frame, leaf with panels, a lever handle and a sign.
    mutating func door(_ c: inout TextureCanvas, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        let frame = chance(0.5) ? PaintColor(unit: 0.94, 0.94, 0.92) : PaintColor.hsv(0.08, 0.6, uniform(0.2...0.4))
        c.fillRect(x0 - 0.06, y0 - 0.06, x1 + 0.06, y1, frame)
        c.strokeRect(x0 - 0.06, y0 - 0.06, x1 + 0.06, y1 + 0.06, line: 0.01, frame.scaled(0.55))
        let leaf: PaintColor
        if chance(0.5) {
            leaf = PaintColor.hsv(uniform(0.05...0.11), uniform(0.4...0.8), uniform(0.35...0.75))
            wood(&c, x0, y0, x1, y1, base: leaf, alongY: true)
        } else {
            leaf = PaintColor.random(saturation: 0.2...0.8, value: 0.3...0.9, using: &rng)
            c.fillRect(x0, y0, x1, y1, leaf)
        }
        let w = x1 - x0, h = y1 - y0
        let panels = int(1...3)
        for k in 0..<panels {
            let py0 = y0 + 0.12 + Double(k) * (h - 0.24) / Double(panels), py1 = py0 + (h - 0.24) / Double(panels) - 0.1
            c.strokeRect(x0 + 0.12, py0, x1 - 0.12, py1, line: 0.015, leaf.scaled(0.6))
            c.strokeRect(x0 + 0.135, py0 + 0.015, x1 - 0.135, py1 - 0.015, line: 0.008, leaf.scaled(1.25))
        }
        let handleY = y1 - 1.0, onRight = chance(0.5)
        let hx = onRight ? x1 - 0.1 : x0 + 0.1
        let steel = PaintColor(unit: 0.75, 0.76, 0.78)
        c.fillRect(hx - 0.025, handleY - 0.08, hx + 0.025, handleY + 0.08, steel.scaled(0.8))
        let lever = onRight ? (hx - 0.14, hx) : (hx, hx + 0.14)
        c.fillRect(lever.0, handleY - 0.012, lever.1, handleY + 0.012, steel)
        c.fillDisc(Vec2(hx, handleY), radius: 0.02, steel.scaled(1.1))
        // Name or number plate.
        let sy = y0 + uniform(0.3...0.5), sw = uniform(0.15...0.3)
        let plate = chance(0.5) ? PaintColor.white : PaintColor.random(using: &rng)
        c.fillRect(x0 + w / 2 - sw / 2, sy, x0 + w / 2 + sw / 2, sy + 0.08, plate)
        textLine(
            &c, at: Vec2(x0 + w / 2 - sw / 2 + 0.01, sy + 0.015), size: 0.05, maxWidth: sw - 0.02,
            color: PaintColor.contrasting(with: plate, minContrast: 110, using: &rng))
    }

    /// A floor `width × depth` metres: tiles, planks or carpet, a rug or not, scuffs.
    mutating func floor(width: Double, depth: Double, texelSize: Double, rug: Bool) -> TextureCanvas {
        var c = TextureCanvas(metricWidth: width, metricHeight: depth, texelSize: texelSize, color: .white)
        let noise = ValueNoise(seed: seed())
        switch int(0...2) {
        case 0:
            // Tiles, optionally a two-colour chequer, per-tile shade, speckles, grout lines.
            let tile = uniform(0.3...0.6), grout = uniform(0.004...0.008)
            let a = PaintColor.random(saturation: 0...0.3, value: 0.45...0.9, using: &rng)
            let b = chance(0.4) ? PaintColor.random(saturation: 0...0.4, value: 0.2...0.6, using: &rng) : a
            let groutColor = a.scaled(0.55)
            let tileNoise = ValueNoise(seed: seed())
            c.paint(0, 0, width, depth) { x, y, _ in
                let i = Int((x / tile).rounded(.down)), j = Int((y / tile).rounded(.down))
                let fx = x - Double(i) * tile, fy = y - Double(j) * tile
                if fx < grout || fy < grout { return groutColor }
                let base = (i + j) & 1 == 0 ? a : b
                return base.scaled(
                    0.9 + 0.15 * tileNoise.lattice(i, j) + 0.12 * noise.value(x / 0.01, y / 0.01)
                        + 0.1 * noise.fractal(x / 0.3, y / 0.3, octaves: 2))
            }
        case 1:
            // Planks: staggered boards with their own tone and grain.
            let plank = uniform(0.12...0.2)
            let base = PaintColor.hsv(uniform(0.05...0.11), uniform(0.35...0.7), uniform(0.35...0.75))
            let boardNoise = ValueNoise(seed: seed())
            c.paint(0, 0, width, depth) { x, y, _ in
                let row = Int((y / plank).rounded(.down))
                let length = 1.2 + 0.6 * boardNoise.lattice(row, 7)
                let shifted = x + length * boardNoise.lattice(row, 3)
                let board = Int((shifted / length).rounded(.down))
                let fx = shifted - Double(board) * length, fy = y - Double(row) * plank
                if fy < 0.003 || fx < 0.003 { return base.scaled(0.45) }
                let n = noise.fractal(x / 0.5, y / 0.012, octaves: 3)
                let tone = 0.8 + 0.3 * boardNoise.lattice(row, board)
                return base.scaled(tone * (0.75 + 0.35 * n))
            }
        default:
            // Carpet with a woven motif grid.
            let base = PaintColor.random(saturation: 0.2...0.6, value: 0.25...0.6, using: &rng)
            let motif = PaintColor.contrasting(with: base, minContrast: 50, using: &rng)
            let cell = uniform(0.25...0.45)
            c.paint(0, 0, width, depth) { x, y, _ in
                let fx = x / cell - (x / cell).rounded(.down) - 0.5, fy = y / cell - (y / cell).rounded(.down) - 0.5
                let onMotif = abs(fx) + abs(fy) < 0.22 || (abs(fx) < 0.05 && abs(fy) < 0.45)
                return (onMotif ? motif : base).scaled(0.85 + 0.3 * noise.value(x / 0.004, y / 0.004))
            }
        }
        if rug {
            let rw = width * uniform(0.3...0.45), rd = depth * uniform(0.3...0.45)
            let rx = width / 2 - rw / 2 + uniform(-0.3...0.3), ry = depth / 2 - rd / 2 + uniform(-0.3...0.3)
            let bg = PaintColor.random(saturation: 0.4...0.9, value: 0.3...0.8, using: &rng)
            c.fillRect(rx, ry, rx + rw, ry + rd, bg)
            c.strokeRect(
                rx + 0.05, ry + 0.05, rx + rw - 0.05, ry + rd - 0.05, line: 0.06,
                PaintColor.contrasting(with: bg, minContrast: 60, using: &rng))
            abstractShapes(&c, rx + 0.15, ry + 0.15, rx + rw - 0.15, ry + rd - 0.15, background: bg, count: int(8...16))
        }
        for _ in 0..<int(3...8) {
            // Scuffs and stains.
            let centre = Vec2(uniform(0...width), uniform(0...depth)), r = uniform(0.02...0.12)
            let f = uniform(0.6...0.85)
            c.modulate(centre.x - r, centre.y - r, centre.x + r, centre.y + r) { x, y in
                (x - centre.x) * (x - centre.x) + (y - centre.y) * (y - centre.y) < r * r ? f : 1
            }
        }
        return c
    }

    /// A ceiling `width × depth` metres: a grid of panels, some of them lights, a few vents.
    mutating func ceiling(width: Double, depth: Double, texelSize: Double) -> TextureCanvas {
        var c = TextureCanvas(metricWidth: width, metricHeight: depth, texelSize: texelSize, color: .white)
        let base = PaintColor.hsv(unit(), uniform(0...0.08), uniform(0.8...0.92))
        plaster(&c, base: base)
        let panel = uniform(0.6...1.2)
        let line = base.scaled(0.7)
        var x = 0.0
        while x < width {
            c.fillRect(x, 0, x + 0.015, depth, line)
            x += panel
        }
        var y = 0.0
        while y < depth {
            c.fillRect(0, y, width, y + 0.015, line)
            y += panel
        }
        let light = PaintColor(unit: 1, 1, 0.97)
        let cols = Int(width / panel), rows = Int(depth / panel)
        for i in 0..<max(cols, 1) {
            for j in 0..<max(rows, 1) where chance(0.18) {
                let x0 = Double(i) * panel + 0.08, y0 = Double(j) * panel + 0.08
                if chance(0.7) {
                    c.fillRect(x0, y0, x0 + panel - 0.15, y0 + panel - 0.15, light)
                    c.strokeRect(x0, y0, x0 + panel - 0.15, y0 + panel - 0.15, line: 0.02, base.scaled(0.8))
                } else {
                    // A vent: dark slats.
                    var s = y0 + 0.05
                    while s < y0 + panel - 0.2 {
                        c.fillRect(x0 + 0.05, s, x0 + panel - 0.2, s + 0.02, base.scaled(0.35))
                        s += 0.05
                    }
                }
            }
        }
        return c
    }

    /// A furniture face: a cabinet with doors or drawers and handles.
    mutating func cabinetFront(width: Double, height: Double, texelSize: Double, base: PaintColor) -> TextureCanvas {
        var c = TextureCanvas(metricWidth: width, metricHeight: height, texelSize: texelSize, color: base)
        wood(&c, 0, 0, width, height, base: base)
        let doors = max(1, Int(width / uniform(0.35...0.6)))
        let drawers = chance(0.5) ? int(1...4) : 0
        let drawerHeight = min(0.25, height / Double(drawers + 2))
        let gap = base.scaled(0.3), steel = PaintColor(unit: 0.8, 0.8, 0.82)
        for k in 0..<drawers {
            let y0 = 0.03 + Double(k) * drawerHeight
            c.strokeRect(0.02, y0, width - 0.02, y0 + drawerHeight - 0.01, line: 0.006, gap)
            c.fillRect(
                width / 2 - 0.08, y0 + drawerHeight / 2 - 0.012, width / 2 + 0.08, y0 + drawerHeight / 2 + 0.012, steel)
        }
        let top = 0.03 + Double(drawers) * drawerHeight
        if height - top > 0.2 {
            for k in 0..<doors {
                let x0 = 0.02 + Double(k) * (width - 0.04) / Double(doors),
                    x1 = x0 + (width - 0.04) / Double(doors) - 0.01
                c.strokeRect(x0, top, x1, height - 0.05, line: 0.006, gap)
                let hx = k % 2 == 0 ? x1 - 0.05 : x0 + 0.05
                c.fillRect(hx - 0.01, top + 0.05, hx + 0.01, top + 0.2, steel)
                if chance(0.3) {
                    // A label on the door.
                    let lw = min(0.2, (x1 - x0) * 0.6), ly = top + 0.3
                    if ly + 0.06 < height {
                        c.fillRect(x0 + 0.05, ly, x0 + 0.05 + lw, ly + 0.06, .white)
                        textLine(&c, at: Vec2(x0 + 0.06, ly + 0.012), size: 0.035, maxWidth: lw - 0.02, color: .black)
                    }
                }
            }
        }
        c.fillRect(0, height - 0.05, width, height, base.scaled(0.25))
        return c
    }

    /// A furniture face: a bookshelf front with rows of books.
    mutating func bookshelfFront(width: Double, height: Double, texelSize: Double, base: PaintColor) -> TextureCanvas {
        var c = TextureCanvas(metricWidth: width, metricHeight: height, texelSize: texelSize, color: base)
        wood(&c, 0, 0, width, height, base: base)
        let back = base.scaled(0.35)
        let shelf = uniform(0.3...0.4), board = 0.025
        var y = board
        while y + 0.15 < height - 0.05 {
            let y1 = min(y + shelf - board, height - 0.05)
            c.fillRect(board, y, width - board, y1, back)
            var x = board + uniform(0...0.1)
            while x < width - board - 0.02 {
                if chance(0.1) {
                    x += uniform(0.05...0.15)
                    continue
                }
                let bw = uniform(0.018...0.06), bh = (y1 - y) * uniform(0.65...0.95)
                guard x + bw < width - board else { break }
                let color = PaintColor.random(saturation: 0.3...0.9, value: 0.2...0.9, using: &rng)
                c.fillRect(x, y1 - bh, x + bw - 0.002, y1, color)
                let band = PaintColor.contrasting(with: color, minContrast: 70, using: &rng)
                c.fillRect(x, y1 - bh * uniform(0.75...0.9), x + bw - 0.002, y1 - bh * 0.7, band)
                if chance(0.5) { c.fillRect(x, y1 - bh * 0.2, x + bw - 0.002, y1 - bh * 0.15, band) }
                x += bw
            }
            y = y1 + board
        }
        return c
    }

    /// A plain wooden panel (cabinet sides, table parts).
    mutating func woodPanel(width: Double, height: Double, texelSize: Double, base: PaintColor) -> TextureCanvas {
        var c = TextureCanvas(metricWidth: width, metricHeight: height, texelSize: texelSize, color: base)
        wood(&c, 0, 0, width, height, base: base)
        return c
    }

    /// A furniture top with papers, a book and a mug seen from above.
    mutating func cluttered(width: Double, depth: Double, texelSize: Double, base: PaintColor) -> TextureCanvas {
        var c = woodPanel(width: width, height: depth, texelSize: texelSize, base: base)
        for _ in 0..<int(1...4) {
            let w = min(width * 0.8, uniform(0.15...0.3)), h = min(depth * 0.8, w * 1.41)
            let x = uniform(0...max(0.01, width - w)), y = uniform(0...max(0.01, depth - h))
            switch int(0...2) {
            case 0:
                c.fillRect(x, y, x + w, y + h, .white)
                paragraph(&c, x + 0.02, y + 0.02, x + w - 0.02, y + h - 0.02, size: 0.012, color: .black)
            case 1:
                let color = PaintColor.random(using: &rng)
                c.fillRect(x, y, x + w, y + h * 0.7, color)
                textLine(
                    &c, at: Vec2(x + 0.02, y + 0.03), size: 0.03, maxWidth: w - 0.04,
                    color: PaintColor.contrasting(with: color, using: &rng))
            default:
                let r = min(w, h) * 0.25
                c.fillRing(Vec2(x + r, y + r), inner: r * 0.75, outer: r, PaintColor.random(using: &rng))
                c.fillDisc(Vec2(x + r, y + r), radius: r * 0.75, PaintColor(unit: 0.25, 0.15, 0.08))
            }
        }
        return c
    }

    /// One face of a product box: a brand colour, a logo, a title, text, and sometimes a barcode.
    mutating func productFace(
        width: Double, height: Double, texelSize: Double, brand: PaintColor, accent: PaintColor
    )
        -> TextureCanvas
    {
        var c = TextureCanvas(metricWidth: width, metricHeight: height, texelSize: texelSize, color: brand)
        let s = min(width, height)
        c.fillRect(0, height * uniform(0.55...0.75), width, height, accent)
        c.strokeRect(0, 0, width, height, line: s * 0.03, accent.scaled(0.5))
        let logo = Vec2(width * uniform(0.25...0.75), height * uniform(0.2...0.4))
        c.fillDisc(logo, radius: s * 0.16, .white)
        c.fillRing(logo, inner: s * 0.09, outer: s * 0.14, accent)
        var star: [Vec2] = []
        for k in 0..<3 {
            let a = Double(k) * 2 * .pi / 3 + uniform(0...1)
            star.append(logo + s * 0.08 * Vec2(cos(a), sin(a)))
        }
        c.fillPolygon(star, brand.scaled(0.5))
        textLine(
            &c, at: Vec2(s * 0.08, height * 0.05), size: s * 0.09, maxWidth: width - s * 0.16,
            color: PaintColor.contrasting(with: brand, minContrast: 100, using: &rng))
        paragraph(
            &c, s * 0.08, height * 0.78, width - s * 0.08, height * 0.97, size: s * 0.035,
            color: PaintColor.contrasting(with: accent, minContrast: 100, using: &rng))
        if chance(0.5) {
            // A barcode.
            let bx = width * 0.55, by = height * 0.5, bw = width * 0.35, bh = height * 0.15
            c.fillRect(bx, by, bx + bw, by + bh, .white)
            var x = bx + 0.004
            while x < bx + bw - 0.004 {
                let line = uniform(0.0008...0.003)
                if chance(0.55) { c.fillRect(x, by + 0.003, x + line, by + bh - 0.003, .black) }
                x += line + 0.0008
            }
        }
        abstractShapes(&c, s * 0.05, height * 0.45, width * 0.5, height * 0.7, background: brand, count: int(3...7))
        return c
    }
}
