import Foundation
import VPSGeometry

/// The four venue generators.
extension Venue {
    /// Margin between walls and where the camera may stand, metres.
    static let wallMargin = 0.45
    /// Margin around furniture, metres.
    static let furnitureMargin = 0.35

    /// For wall `i` (north, east, south, west) of the room `[x0, x1] × [z0, z1]`: its top-left
    /// corner seen from inside at floor level, its right direction, and its inward normal.
    static func wallFrame(_ i: Int, x0: Double, x1: Double, z0: Double, z1: Double) -> (Vec3, Vec3, Vec3) {
        switch i {
        case 0: return (Vec3(x0, 0, z0), Vec3(1, 0, 0), Vec3(0, 0, 1))
        case 1: return (Vec3(x1, 0, z0), Vec3(0, 0, 1), Vec3(-1, 0, 0))
        case 2: return (Vec3(x1, 0, z1), Vec3(-1, 0, 0), Vec3(0, 0, -1))
        default: return (Vec3(x0, 0, z1), Vec3(0, 0, -1), Vec3(1, 0, 0))
        }
    }

    /// The floor area in front of a stretch `[a, b]` (metres along wall `i`), `depth` metres deep.
    static func clearance(
        wall i: Int, from a: Double, to b: Double, depth: Double, x0: Double, x1: Double, z0: Double, z1: Double
    ) -> WalkableArea.Rect {
        let (corner, right, inward) = wallFrame(i, x0: x0, x1: x1, z0: z0, z1: z1)
        let p = [corner + right * a, corner + right * b, corner + right * a + inward * depth]
        let xs = p.map(\.x), zs = p.map(\.z)
        return WalkableArea.Rect(min: Vec2(xs.min()!, zs.min()!), max: Vec2(xs.max()!, zs.max()!))
    }

    /// A painted door and maybe a window on random walls of a room; returns the features per wall
    /// and the floor areas to keep free of furniture.
    static func doorAndWindow(
        _ b: inout VenueBuilder, x0: Double, x1: Double, z0: Double, z1: Double, height: Double,
        avoidWall: Int? = nil
    ) -> ([[WallFeature]], [WalkableArea.Rect]) {
        var features: [[WallFeature]] = [[], [], [], []]
        var clear: [WalkableArea.Rect] = []
        let lengths = [x1 - x0, z1 - z0, x1 - x0, z1 - z0]
        var doorWall = b.painter.int(0...3)
        if doorWall == avoidWall { doorWall = (doorWall + 2) % 4 }
        let width = b.painter.uniform(0.85...1.0)
        let dx = b.painter.uniform(0.4...(lengths[doorWall] - width - 0.4))
        features[doorWall].append(WallFeature(kind: .door, x0: dx, y0: height - 2.05, x1: dx + width, y1: height))
        clear.append(
            clearance(wall: doorWall, from: dx - 0.2, to: dx + width + 0.2, depth: 1.1, x0: x0, x1: x1, z0: z0, z1: z1))
        if b.painter.chance(0.75) {
            var windowWall = (doorWall + 1 + b.painter.int(0...2)) % 4
            if windowWall == avoidWall { windowWall = (windowWall + 2) % 4 }
            let ww = b.painter.uniform(1.0...min(2.2, lengths[windowWall] - 1))
            let wx = b.painter.uniform(0.4...(lengths[windowWall] - ww - 0.4))
            let overlapsDoor = features[windowWall].contains { wx < $0.x1 + 0.3 && $0.x0 < wx + ww + 0.3 }
            if !overlapsDoor {
                features[windowWall].append(
                    WallFeature(kind: .window, x0: wx, y0: height - 2.2, x1: wx + ww, y1: height - 0.95))
            }
        }
        return (features, clear)
    }

    static func makeRoom(seed: UInt64, texelScale: Double) -> Venue {
        var b = VenueBuilder(seed: seed ^ SplitMix64.seed(from: "room"), texelScale: texelScale)
        let w = b.painter.uniform(5.6...6.4), d = b.painter.uniform(4.6...5.4), h = b.painter.uniform(2.7...2.9)
        let (x0, x1, z0, z1) = (-w / 2, w / 2, -d / 2, d / 2)
        let (features, clear) = doorAndWindow(&b, x0: x0, x1: x1, z0: z0, z1: z1, height: h)
        b.addRoom(
            x0: x0, x1: x1, z0: z0, z1: z1, height: h, features: features, posters: 4...7, rug: true, name: "room")
        let footprints = b.furnish(
            x0: x0, x1: x1, z0: z0, z1: z1, height: h, count: b.painter.int(3...5), keepClear: clear, name: "room")
        let interior = BoundingBox(min: Vec3(x0, 0, z0), max: Vec3(x1, h, z1))
        let area = WalkableArea(
            regions: [WalkableArea.Rect(min: Vec2(x0, z0), max: Vec2(x1, z1)).inset(by: -wallMargin)],
            obstacles: footprints.map { $0.inset(by: furnitureMargin) })
        return Venue(
            name: "room seed \(seed)", surfaces: b.surfaces, textures: b.textures, walkableArea: area,
            rooms: [interior],
            ceilingHeight: h, kind: .room, seed: seed)
    }

    static func makeCorridor(seed: UInt64, texelScale: Double) -> Venue {
        var b = VenueBuilder(seed: seed ^ SplitMix64.seed(from: "corridor"), texelScale: texelScale)
        let length = b.painter.uniform(19.5...20.5), w = b.painter.uniform(1.9...2.1), h = b.painter.uniform(2.7...2.9)
        let (x0, x1, z0, z1) = (-length / 2, length / 2, -w / 2, w / 2)
        var features: [[WallFeature]] = [[], [], [], []]
        for wall in [0, 2] {
            var x = b.painter.uniform(0.8...2.5)
            while true {
                let dw = b.painter.uniform(0.85...1.0)
                guard x + dw < length - 0.6 else { break }
                features[wall].append(WallFeature(kind: .door, x0: x, y0: h - 2.05, x1: x + dw, y1: h))
                x += dw + b.painter.uniform(2.2...4.5)
            }
        }
        let windowEnd = b.painter.chance(0.5) ? 1 : 3
        features[windowEnd].append(WallFeature(kind: .window, x0: 0.35, y0: h - 2.3, x1: w - 0.35, y1: h - 0.9))
        let doorWidth = b.painter.uniform(0.85...1.0)
        features[4 - windowEnd].append(
            WallFeature(kind: .door, x0: w / 2 - doorWidth / 2, y0: h - 2.05, x1: w / 2 + doorWidth / 2, y1: h))
        b.addRoom(
            x0: x0, x1: x1, z0: z0, z1: z1, height: h, features: features, posters: 4...7, rug: false, name: "corridor")
        let area = WalkableArea(
            regions: [WalkableArea.Rect(min: Vec2(x0, z0), max: Vec2(x1, z1)).inset(by: -wallMargin)])
        return Venue(
            name: "corridor seed \(seed)", surfaces: b.surfaces, textures: b.textures, walkableArea: area,
            rooms: [BoundingBox(min: Vec3(x0, 0, z0), max: Vec3(x1, h, z1))], ceilingHeight: h, kind: .corridor,
            seed: seed)
    }

    static func makeAliasing(seed: UInt64, texelScale: Double) -> Venue {
        var b = VenueBuilder(seed: seed ^ SplitMix64.seed(from: "aliasing"), texelScale: texelScale)
        let t = 0.12, doorWidth = 1.0, doorHeight = 2.1
        let w = b.painter.uniform(4.4...5.2), d = b.painter.uniform(3.8...4.6), h = b.painter.uniform(2.7...2.9)
        // Room A lies at x < 0; the doorway is centred on the origin, in the partition wall.
        let a = b.painter.uniform(1.3...(d - 1.3))
        let (x0, x1, z0, z1) = (-t / 2 - w, -t / 2, -a, d - a)
        var (features, clear) = doorAndWindow(&b, x0: x0, x1: x1, z0: z0, z1: z1, height: h, avoidWall: 1)
        features[1].append(
            WallFeature(kind: .opening, x0: a - doorWidth / 2, y0: h - doorHeight, x1: a + doorWidth / 2, y1: h))
        clear.append(WalkableArea.Rect(min: Vec2(x1 - 1.3, -1.0), max: Vec2(x1, 1.0)))
        b.addRoom(
            x0: x0, x1: x1, z0: z0, z1: z1, height: h, features: features, posters: 4...7, rug: true, name: "roomA")
        // The A half of the doorway: two jambs, the lintel and the threshold.
        var trim = TextureCanvas(metricWidth: 1, metricHeight: 1, texelSize: b.texelSize(.furniture), color: .white)
        b.painter.plaster(&trim, base: PaintColor.hsv(b.painter.unit(), 0.15, b.painter.uniform(0.5...0.9)))
        let trimTexture = b.add(trim)
        let e = b.overlap, s = b.texelSize(.furniture), half = t / 2 + 2 * e
        b.addRectangle(
            topLeft: Vec3(x1 - e, doorHeight, -doorWidth / 2), right: Vec3(1, 0, 0), down: Vec3(0, -1, 0), width: half,
            height: doorHeight, texture: trimTexture, texelSize: s, name: "roomA.doorway.jamb")
        b.addRectangle(
            topLeft: Vec3(x1 - e + half, doorHeight, doorWidth / 2), right: Vec3(-1, 0, 0), down: Vec3(0, -1, 0),
            width: half, height: doorHeight, texture: trimTexture, texelSize: s, name: "roomA.doorway.jamb")
        b.addRectangle(
            topLeft: Vec3(x1 - e, doorHeight, doorWidth / 2), right: Vec3(1, 0, 0), down: Vec3(0, 0, -1), width: half,
            height: doorWidth, texture: trimTexture, texelSize: s, name: "roomA.doorway.lintel")
        b.addRectangle(
            topLeft: Vec3(x1 - e, 0, -doorWidth / 2), right: Vec3(1, 0, 0), down: Vec3(0, 0, 1), width: half,
            height: doorWidth, texture: trimTexture, texelSize: s, name: "roomA.doorway.threshold")
        let footprints = b.furnish(
            x0: x0, x1: x1, z0: z0, z1: z1, height: h, count: b.painter.int(3...4), keepClear: clear, name: "roomA")
        // Room B is room A turned half a circle about the vertical axis through the doorway.
        let symmetry = Rigid3(rotation: Quaternion(x: 0, y: 1, z: 0, w: 0))
        let roomA = b.surfaces
        let surfaces =
            roomA
            + roomA.map { s in
                var m = s.transformed(by: symmetry)
                m.name = s.name.replacingOccurrences(of: "roomA", with: "roomB")
                return m
            }
        func mirrored(_ r: WalkableArea.Rect) -> WalkableArea.Rect {
            WalkableArea.Rect(min: -r.max, max: -r.min)
        }
        let regionA = WalkableArea.Rect(min: Vec2(x0, z0), max: Vec2(x1, z1)).inset(by: -wallMargin)
        let obstaclesA = footprints.map { $0.inset(by: furnitureMargin) }
        let portal = WalkableArea.Portal(
            regionA: 0, regionB: 1, approachA: Vec2(x1 - 0.9, 0), approachB: Vec2(-x1 + 0.9, 0),
            passage: WalkableArea.Rect(
                min: Vec2(x1 - wallMargin - 0.05, -0.15), max: Vec2(-x1 + wallMargin + 0.05, 0.15)))
        let area = WalkableArea(
            regions: [regionA, mirrored(regionA)], obstacles: obstaclesA + obstaclesA.map(mirrored), portals: [portal])
        let interiorA = BoundingBox(min: Vec3(x0, 0, z0), max: Vec3(x1, h, z1))
        let interiorB = BoundingBox(min: Vec3(-x1, 0, -z1), max: Vec3(-x0, h, -z0))
        return Venue(
            name: "aliasing seed \(seed)", surfaces: surfaces, textures: b.textures, walkableArea: area,
            rooms: [interiorA, interiorB], ceilingHeight: h, kind: .aliasing, seed: seed, symmetry: symmetry)
    }

    static func makeObject(seed: UInt64, texelScale: Double) -> Venue {
        var b = VenueBuilder(seed: seed ^ SplitMix64.seed(from: "object"), texelScale: texelScale)
        let w = b.painter.uniform(4.6...5.4), d = b.painter.uniform(4.0...4.6), h = b.painter.uniform(2.7...2.9)
        let (x0, x1, z0, z1) = (-w / 2, w / 2, -d / 2, d / 2)
        let (features, clear) = doorAndWindow(&b, x0: x0, x1: x1, z0: z0, z1: z1, height: h)
        b.addRoom(
            x0: x0, x1: x1, z0: z0, z1: z1, height: h, features: features, posters: 4...7, rug: false, name: "room")
        // The table near the middle, the object on it.
        let tableWidth = b.painter.uniform(1.2...1.6), tableDepth = b.painter.uniform(0.7...0.9), tableHeight = 0.74
        let tableYaw = b.painter.uniform(-0.4...0.4)
        let tableCentre = Vec3(b.painter.uniform(-0.3...0.3), 0, b.painter.uniform(-0.3...0.3))
        let table = b.addTable(
            centre: tableCentre, yaw: tableYaw, width: tableWidth, depth: tableDepth, height: tableHeight, name: "table"
        )
        let ow = b.painter.uniform(0.22...0.34), oh = b.painter.uniform(0.1...0.22), od = b.painter.uniform(0.14...0.24)
        let worldFromTable = Rigid3(
            rotation: Quaternion(axis: Vec3(0, 1, 0), angle: tableYaw), translation: tableCentre)
        let onTable = Vec3(
            b.painter.uniform(-0.2...0.2) * (tableWidth - 0.4), tableHeight,
            b.painter.uniform(-0.2...0.2) * (tableDepth - 0.3))
        let worldFromObject =
            worldFromTable
            * Rigid3(
                rotation: Quaternion(axis: Vec3(0, 1, 0), angle: b.painter.uniform(-.pi...(.pi))), translation: onTable)
        let brand = PaintColor.random(saturation: 0.6...1, value: 0.5...1, using: &b.painter.rng)
        let accent = PaintColor.contrasting(with: brand, minContrast: 70, using: &b.painter.rng)
        let s = b.texelSize(.object)
        let sizes = [(ow, oh), (ow, oh), (od, oh), (od, oh), (ow, od)]
        var faces: [Int?] = sizes.map { size in
            b.add(b.painter.productFace(width: size.0, height: size.1, texelSize: s, brand: brand, accent: accent))
        }
        faces.append(nil)
        let firstObjectSurface = b.surfaces.count
        b.addBox(
            worldFromBox: worldFromObject, width: ow, height: oh, depth: od, faces: faces, texelSize: s, name: "object")
        let objectSurfaces = Array(firstObjectSurface..<b.surfaces.count)
        let footprints = b.furnish(
            x0: x0, x1: x1, z0: z0, z1: z1, height: h, count: b.painter.int(2...3),
            keepClear: clear + [table.inset(by: 0.6)],
            name: "room")
        let area = WalkableArea(
            regions: [WalkableArea.Rect(min: Vec2(x0, z0), max: Vec2(x1, z1)).inset(by: -wallMargin)],
            obstacles: (footprints + [table]).map { $0.inset(by: furnitureMargin) })
        return Venue(
            name: "object seed \(seed)", surfaces: b.surfaces, textures: b.textures, walkableArea: area,
            rooms: [BoundingBox(min: Vec3(x0, 0, z0), max: Vec3(x1, h, z1))], ceilingHeight: h, kind: .object,
            seed: seed,
            worldFromObject: worldFromObject,
            objectBounds: BoundingBox(min: Vec3(-ow / 2, 0, -od / 2), max: Vec3(ow / 2, oh, od / 2)),
            objectSurfaceIndices: objectSurfaces)
    }
}
