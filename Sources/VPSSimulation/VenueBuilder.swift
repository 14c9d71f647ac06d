import Foundation
import VPSGeometry

/// Assembles venue geometry: room shells with doorways, furniture boxes, textures.
///
/// Surfaces overlap their neighbours by `overlap` along outer edges (walls run a little past the
/// corners and below the floor), so rounding never opens a crack between them.
struct VenueBuilder {
    var painter: Painter
    var surfaces: [Surface] = []
    var textures: [Texture] = []
    /// Multiplies every texel size (1 = full detail; tests use coarser textures).
    let texelScale: Double
    let overlap = 0.005

    init(seed: UInt64, texelScale: Double) {
        painter = Painter(seed: seed)
        self.texelScale = texelScale
    }

    /// Texel sizes (metres) by material, before `texelScale`.
    enum Detail: Double {
        case wall = 0.004
        case floor = 0.008
        case ceiling = 0.016
        case furniture = 0.005
        case object = 0.0015
    }

    func texelSize(_ d: Detail) -> Double { d.rawValue * texelScale }

    mutating func add(_ canvas: TextureCanvas) -> Int {
        textures.append(canvas.texture)
        return textures.count - 1
    }

    /// Adds a rectangle whose texture is the canvas region starting at `texelOffset` texels.
    mutating func addRectangle(
        topLeft: Vec3, right: Vec3, down: Vec3, width: Double, height: Double, texture: Int, texelSize: Double,
        texelOffset: Vec2 = .zero, doubleSided: Bool = false, name: String
    ) {
        surfaces.append(
            .rectangle(
                topLeft: topLeft, right: right, down: down, width: width, height: height, textureIndex: texture,
                texelSize: texelSize, texelOffset: texelOffset, isDoubleSided: doubleSided, name: name))
    }

    /// One inward-facing wall plane: `topLeft` seen from inside, `right` along it; `openings` are
    /// holes in canvas metres (x0, top y0, x1, bottom y1 — y down from the ceiling line).
    mutating func addWall(
        topLeft: Vec3, right: Vec3, length: Double, height: Double, canvas: TextureCanvas,
        openings: [(Double, Double, Double, Double)], name: String
    ) {
        let texture = add(canvas)
        let s = canvas.texelSize, e = overlap
        let down = Vec3(0, -1, 0)
        func piece(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ suffix: String) {
            guard x1 > x0, y1 > y0 else { return }
            addRectangle(
                topLeft: topLeft + right * x0 + down * y0, right: right, down: down, width: x1 - x0, height: y1 - y0,
                texture: texture, texelSize: s, texelOffset: Vec2(x0 / s, y0 / s), name: name + suffix)
        }
        let holes = openings.sorted { $0.0 < $1.0 }
        var x = -e
        for (k, h) in holes.enumerated() {
            piece(x, -e, h.0, height + e, ".\(k).side")
            piece(h.0 - e, -e, h.2 + e, h.1, ".\(k).above")
            x = h.2
        }
        piece(x, -e, length + e, height + e, holes.isEmpty ? "" : ".end")
    }

    /// Adds an axis-aligned room shell (floor, ceiling, four walls facing inwards) over
    /// `[x0, x1] × [0, height] × [z0, z1]`; `features` and `openings` per wall in the order
    /// north (−Z), east (+X), south (+Z), west (−X).
    mutating func addRoom(
        x0: Double, x1: Double, z0: Double, z1: Double, height: Double, features: [[WallFeature]],
        posters: ClosedRange<Int>, rug: Bool, name: String
    ) {
        let w = x1 - x0, d = z1 - z0, e = overlap
        // (top-left corner seen from inside, right direction, length)
        let walls: [(Vec3, Vec3, Double, String)] = [
            (Vec3(x0, height, z0), Vec3(1, 0, 0), w, "north"),
            (Vec3(x1, height, z0), Vec3(0, 0, 1), d, "east"),
            (Vec3(x1, height, z1), Vec3(-1, 0, 0), w, "south"),
            (Vec3(x0, height, z1), Vec3(0, 0, -1), d, "west"),
        ]
        for (i, wall) in walls.enumerated() {
            let f = features[i]
            let scaledPosters =
                max(
                    0, Int((Double(posters.lowerBound) * wall.2 / 5).rounded()))...max(
                    1, Int((Double(posters.upperBound) * wall.2 / 5).rounded()))
            let canvas = painter.wall(
                width: wall.2, height: height, texelSize: texelSize(.wall), features: f, posters: scaledPosters)
            let openings = f.filter { $0.kind == .opening }.map { ($0.x0, $0.y0, $0.x1, $0.y1) }
            addWall(
                topLeft: wall.0, right: wall.1, length: wall.2, height: height, canvas: canvas, openings: openings,
                name: "\(name).wall.\(wall.3)")
        }
        let floor = add(painter.floor(width: w, depth: d, texelSize: texelSize(.floor), rug: rug))
        addRectangle(
            topLeft: Vec3(x0 - e, 0, z0 - e), right: Vec3(1, 0, 0), down: Vec3(0, 0, 1), width: w + 2 * e,
            height: d + 2 * e, texture: floor, texelSize: texelSize(.floor),
            texelOffset: Vec2(-e, -e) / texelSize(.floor), name: "\(name).floor")
        let ceiling = add(painter.ceiling(width: w, depth: d, texelSize: texelSize(.ceiling)))
        addRectangle(
            topLeft: Vec3(x0 - e, height, z1 + e), right: Vec3(1, 0, 0), down: Vec3(0, 0, -1), width: w + 2 * e,
            height: d + 2 * e, texture: ceiling, texelSize: texelSize(.ceiling),
            texelOffset: Vec2(-e, -e) / texelSize(.ceiling), name: "\(name).ceiling")
    }

    /// Adds a box in its own frame `[−w/2, w/2] × [0, h] × [−d/2, d/2]` (front face +Z), placed by
    /// `worldFromBox`. `faces` holds textures for front, back, right (+X), left (−X), top and
    /// bottom; nil skips a face (hidden against a wall or the floor).
    mutating func addBox(
        worldFromBox: Rigid3, width w: Double, height h: Double, depth d: Double, faces: [Int?], texelSize s: Double,
        name: String
    ) {
        let specs: [(Vec3, Vec3, Vec3, Double, Double, String)] = [
            (Vec3(-w / 2, h, d / 2), Vec3(1, 0, 0), Vec3(0, -1, 0), w, h, "front"),
            (Vec3(w / 2, h, -d / 2), Vec3(-1, 0, 0), Vec3(0, -1, 0), w, h, "back"),
            (Vec3(w / 2, h, d / 2), Vec3(0, 0, -1), Vec3(0, -1, 0), d, h, "right"),
            (Vec3(-w / 2, h, -d / 2), Vec3(0, 0, 1), Vec3(0, -1, 0), d, h, "left"),
            (Vec3(-w / 2, h, -d / 2), Vec3(1, 0, 0), Vec3(0, 0, 1), w, d, "top"),
            (Vec3(-w / 2, 0, d / 2), Vec3(1, 0, 0), Vec3(0, 0, -1), w, d, "bottom"),
        ]
        for (i, spec) in specs.enumerated() {
            guard i < faces.count, let texture = faces[i] else { continue }
            let local = Surface.rectangle(
                topLeft: spec.0, right: spec.1, down: spec.2, width: spec.3, height: spec.4, textureIndex: texture,
                texelSize: s, name: "\(name).\(spec.5)")
            surfaces.append(local.transformed(by: worldFromBox))
        }
    }

    /// A piece of furniture standing against a wall: a cabinet, bookshelf or sofa-like block.
    /// Returns its footprint in the ground plane.
    @discardableResult
    mutating func addFurniture(
        worldFromBox: Rigid3, width: Double, height: Double, depth: Double, name: String
    )
        -> WalkableArea.Rect
    {
        let s = texelSize(.furniture)
        let base = PaintColor.hsv(
            painter.uniform(0.04...0.12), painter.uniform(0.2...0.7), painter.uniform(0.35...0.85))
        let front: TextureCanvas
        switch painter.int(0...2) {
        case 0: front = painter.bookshelfFront(width: width, height: height, texelSize: s, base: base)
        case 1: front = painter.cabinetFront(width: width, height: height, texelSize: s, base: base)
        default:
            var c = TextureCanvas(metricWidth: width, metricHeight: height, texelSize: s, color: base)
            let cloth = PaintColor.random(saturation: 0.3...0.8, value: 0.25...0.7, using: &painter.rng)
            painter.fabric(&c, 0, 0, width, height, base: cloth)
            let cushions = max(1, Int(width / 0.7))
            for k in 0..<cushions {
                let x0 = Double(k) * width / Double(cushions)
                c.strokeRect(
                    x0 + 0.02, 0.02, x0 + width / Double(cushions) - 0.02, height * 0.6, line: 0.015,
                    cloth.scaled(0.6))
            }
            front = c
        }
        let frontIndex = add(front)
        let side1 = add(painter.woodPanel(width: depth, height: height, texelSize: s, base: base))
        let side2 = add(painter.woodPanel(width: depth, height: height, texelSize: s, base: base))
        let top = add(painter.cluttered(width: width, depth: depth, texelSize: s, base: base))
        addBox(
            worldFromBox: worldFromBox, width: width, height: height, depth: depth,
            faces: [frontIndex, nil, side1, side2, top, nil], texelSize: s, name: name)
        let corners = [
            Vec3(-width / 2, 0, -depth / 2), Vec3(width / 2, 0, depth / 2), Vec3(-width / 2, 0, depth / 2),
            Vec3(width / 2, 0, -depth / 2),
        ].map { worldFromBox * $0 }
        let xs = corners.map(\.x), zs = corners.map(\.z)
        return WalkableArea.Rect(min: Vec2(xs.min()!, zs.min()!), max: Vec2(xs.max()!, zs.max()!))
    }

    /// Places up to `count` furniture pieces against the walls of the room `[x0, x1] × [z0, z1]`,
    /// avoiding `keepClear` footprints; returns the footprints.
    mutating func furnish(
        x0: Double, x1: Double, z0: Double, z1: Double, height: Double, count: Int,
        keepClear: [WalkableArea.Rect], name: String
    ) -> [WalkableArea.Rect] {
        var footprints: [WalkableArea.Rect] = []
        var attempts = 0
        while footprints.count < count && attempts < 100 {
            attempts += 1
            let wall = painter.int(0...3)
            let w = painter.uniform(0.6...1.8), d = painter.uniform(0.35...0.6)
            let h = min(height - 0.3, painter.chance(0.5) ? painter.uniform(0.7...1.1) : painter.uniform(1.5...2.1))
            let gap = 0.02
            let yaw: Double, centre: Vec3
            switch wall {
            case 0:
                yaw = 0
                centre = Vec3(painter.uniform(x0 + w / 2...x1 - w / 2), 0, z0 + d / 2 + gap)
            case 1:
                yaw = -.pi / 2
                centre = Vec3(x1 - d / 2 - gap, 0, painter.uniform(z0 + w / 2...z1 - w / 2))
            case 2:
                yaw = .pi
                centre = Vec3(painter.uniform(x0 + w / 2...x1 - w / 2), 0, z1 - d / 2 - gap)
            default:
                yaw = .pi / 2
                centre = Vec3(x0 + d / 2 + gap, 0, painter.uniform(z0 + w / 2...z1 - w / 2))
            }
            let along = wall % 2 == 0 ? Vec2(w / 2, d / 2) : Vec2(d / 2, w / 2)
            let rect = WalkableArea.Rect(
                min: Vec2(centre.x, centre.z) - along, max: Vec2(centre.x, centre.z) + along)
            let blocked = (footprints + keepClear).contains {
                rect.min.x < $0.max.x + 0.3 && $0.min.x < rect.max.x + 0.3 && rect.min.y < $0.max.y + 0.3
                    && $0.min.y < rect.max.y + 0.3
            }
            if blocked { continue }
            let worldFromBox = Rigid3(rotation: Quaternion(axis: Vec3(0, 1, 0), angle: yaw), translation: centre)
            footprints.append(
                addFurniture(
                    worldFromBox: worldFromBox, width: w, height: h, depth: d,
                    name: "\(name).furniture.\(footprints.count)"
                ))
        }
        return footprints
    }

    /// A table: a top slab on four legs, centred at `centre` (floor level), rotated by `yaw`.
    /// Returns its footprint.
    mutating func addTable(
        centre: Vec3, yaw: Double, width: Double, depth: Double, height: Double, name: String
    )
        -> WalkableArea.Rect
    {
        let s = texelSize(.furniture)
        let base = PaintColor.hsv(painter.uniform(0.05...0.1), painter.uniform(0.3...0.7), painter.uniform(0.4...0.8))
        let worldFromTable = Rigid3(rotation: Quaternion(axis: Vec3(0, 1, 0), angle: yaw), translation: centre)
        let slab = 0.04
        let top = add(painter.cluttered(width: width, depth: depth, texelSize: s, base: base))
        let edge = add(painter.woodPanel(width: max(width, depth), height: slab, texelSize: s, base: base.scaled(0.8)))
        let under = add(painter.woodPanel(width: width, height: depth, texelSize: s, base: base.scaled(0.6)))
        addBox(
            worldFromBox: worldFromTable * Rigid3(translation: Vec3(0, height - slab, 0)), width: width, height: slab,
            depth: depth, faces: [edge, edge, edge, edge, top, under], texelSize: s, name: "\(name).top")
        let leg = 0.05
        let metal: Int = {
            var c = TextureCanvas(metricWidth: leg, metricHeight: height, texelSize: s, color: .black)
            painter.metal(&c, 0, 0, leg, height)
            return add(c)
        }()
        for (sx, sz) in [(-1.0, -1.0), (1, -1), (1, 1), (-1, 1)] {
            let p = Vec3(sx * (width / 2 - leg), 0, sz * (depth / 2 - leg))
            addBox(
                worldFromBox: worldFromTable * Rigid3(translation: p), width: leg, height: height - slab, depth: leg,
                faces: [metal, metal, metal, metal, nil, nil], texelSize: s, name: "\(name).leg")
        }
        let corners = [
            Vec3(-width / 2, 0, -depth / 2), Vec3(width / 2, 0, depth / 2), Vec3(-width / 2, 0, depth / 2),
            Vec3(width / 2, 0, -depth / 2),
        ].map { worldFromTable * $0 }
        let xs = corners.map(\.x), zs = corners.map(\.z)
        return WalkableArea.Rect(min: Vec2(xs.min()!, zs.min()!), max: Vec2(xs.max()!, zs.max()!))
    }

    /// The bounding box of every vertex.
    var bounds: BoundingBox { BoundingBox(enclosing: surfaces.flatMap(\.vertices)) }
}
