import Foundation
import MultiSetCommandLine
import VPSGeometry
import VPSMap
import VPSServer

/// `multiset synth-cloud`: a large synthetic map for viewer tests (`make test-browser` draws 100,000
/// points): coloured points on the floor and walls of a hall, its mesh, a ring of keyframes looking out at
/// the walls, and a georeference. Its descriptors are random, so it is for drawing, not for localization.
enum SynthCloudCommand {
    /// The options of this command that take no value.
    static let switches: Set<String> = []

    static let usage = """
        usage: multiset synth-cloud --points N --code MAP_XXXXXXXXXXXX [--name NAME] [--keyframes K]
                                    [--account ID] [--seed S] [--data DIR]

        Writes an active map of N points (default 100000) and K keyframes (default 24) into the data directory,
        under the default account or --account. For viewer tests and demos: it cannot localize anything.
        """

    static func run(_ args: inout Arguments) throws -> Int32 {
        if args.flag("help") {
            print(usage)
            return 0
        }
        let count = try args.int("points", default: 100_000)
        let keyframeCount = try args.int("keyframes", default: 24)
        let seed = UInt64(try args.int("seed", default: 1))
        let path = args.string("data") ?? ".multiset"
        let account = args.string("account") ?? DataDirectory.defaultAccountID
        guard let code = args.string("code"), Identifiers.isCode(code, prefix: "MAP_") else {
            throw UsageError("--code MAP_ + 12 uppercase letters or digits is required\n\(usage)")
        }
        let name = args.string("name") ?? "synthetic hall"
        try args.rejectUnknown()
        guard (1...5_000_000).contains(count), (0...1000).contains(keyframeCount) else {
            throw UsageError("--points takes 1…5000000, --keyframes 0…1000")
        }
        let data = try DataDirectory(path: path, requireOwnership: true)
        var map = hall(points: count, keyframes: keyframeCount, seed: seed)
        map.code = code
        map.name = name
        let id = Identifiers.newID()
        let files = MapFiles(dataDirectory: data.url.path).upload(id: id)
        try MapFile.write(map, to: files.map, meshTo: files.mesh)
        let now = Date().timeIntervalSince1970
        let bytes = (try? FileManager.default.attributesOfItem(atPath: files.map.path)[.size] as? Int) ?? 0
        try data.store.createMap(
            MapRecord(
                id: id, accountID: account, code: code, kind: .map, name: name, description: "synthetic",
                status: .active, file: files.file, bytes: bytes, failure: "", createdAt: now, updatedAt: now))
        print("synth-cloud: \(code) (\(id)): \(count) points, \(keyframeCount) keyframes, \(bytes) bytes")
        return 0
    }

    /// Points on the floor (grey-blue tiles) and walls (a hue around the hall) of a 24 × 4 × 16 m hall.
    static func hall(points count: Int, keyframes keyframeCount: Int, seed: UInt64) -> MapData {
        var rng = SplitMix64(seed: seed)
        func uniform() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        let (w, h, d) = (24.0, 4.0, 16.0)
        var positions: [Vec3] = []
        var colors: [UInt8] = []
        positions.reserveCapacity(count)
        colors.reserveCapacity(3 * count)
        for _ in 0..<count {
            let u = uniform(), a = uniform(), b = uniform()
            var p: Vec3
            if u < 0.4 {
                p = Vec3((a - 0.5) * w, 0, (b - 0.5) * d)
                let tile = (Int((p.x + 100).rounded(.down)) + Int((p.z + 100).rounded(.down))) % 2 == 0
                colors += tile ? [70, 90, 120] : [150, 160, 175]
            } else {
                let perimeter = 2 * (w + d)
                let s = a * perimeter
                let y = b * h
                if s < w {
                    p = Vec3(s - w / 2, y, -d / 2)
                } else if s < w + d {
                    p = Vec3(w / 2, y, s - w - d / 2)
                } else if s < 2 * w + d {
                    p = Vec3(w / 2 - (s - w - d), y, d / 2)
                } else {
                    p = Vec3(-w / 2, y, d / 2 - (s - 2 * w - d))
                }
                let hue = s / perimeter * 6
                let x = 1 - abs(hue.truncatingRemainder(dividingBy: 2) - 1)
                let rgb: (Double, Double, Double) =
                    hue < 1
                    ? (1, x, 0)
                    : hue < 2 ? (x, 1, 0) : hue < 3 ? (0, 1, x) : hue < 4 ? (0, x, 1) : hue < 5 ? (x, 0, 1) : (1, 0, x)
                let shade = 0.55 + 0.45 * (y / h)
                colors += [rgb.0, rgb.1, rgb.2].map { UInt8(min(255, 40 + 215 * $0 * shade)) }
            }
            positions.append(p)
        }
        let camera = Camera(fx: 500, fy: 500, cx: 320, cy: 240, width: 640, height: 480)
        var keyframes: [Keyframe] = []
        for i in 0..<keyframeCount {
            let angle = Double(i) / Double(max(1, keyframeCount)) * 2 * .pi
            let centre = Vec3(6 * cos(angle), 1.5, 4 * sin(angle))
            let forward = Vec3(cos(angle), 0, sin(angle))  // looking out at the walls
            let down = Vec3(0, -1, 0)
            let right = down.cross(forward)
            let mapFromCamera = Rigid3(rotationMatrix: Mat3(columns: right, down, forward), translation: centre)
            // A few keypoints on the points this camera sees, so its picture is not empty.
            var keypoints: [SIMD2<Float>] = []
            var indices: [Int32] = []
            let camFromMap = mapFromCamera.inverse
            var k = i
            while keypoints.count < 300 && k < positions.count {
                let c = camFromMap.transform(positions[k])
                if c.z > 0.5 {
                    let u = camera.fx * c.x / c.z + camera.cx, v = camera.fy * c.y / c.z + camera.cy
                    if u >= 0, u < 640, v >= 0, v < 480 {
                        keypoints.append(SIMD2(Float(u), Float(v)))
                        indices.append(Int32(k))
                    }
                }
                k += 97
            }
            keyframes.append(
                Keyframe(
                    id: UInt32(i), name: "synthetic_\(i)", camera: camera, camFromMap: camFromMap, keypoints: keypoints,
                    descriptors: (0..<(32 * keypoints.count)).map { _ in UInt8(truncatingIfNeeded: rng.next()) },
                    pointIndices: indices))
        }
        // The hall's floor and walls as a mesh: 4 × 4 quads on the floor and one quad per wall.
        var corners: [Vec3] = []
        var triangles: [UInt32] = []
        func quad(_ a: Vec3, _ b: Vec3, _ c: Vec3, _ d: Vec3) {
            let base = UInt32(corners.count)
            corners += [a, b, c, d]
            triangles += [base, base + 1, base + 2, base, base + 2, base + 3]
        }
        for i in 0..<4 {
            for j in 0..<4 {
                let x0 = -w / 2 + Double(i) * w / 4, z0 = -d / 2 + Double(j) * d / 4
                quad(Vec3(x0, 0, z0), Vec3(x0 + w / 4, 0, z0), Vec3(x0 + w / 4, 0, z0 + d / 4), Vec3(x0, 0, z0 + d / 4))
            }
        }
        let ring = [Vec3(-w / 2, 0, -d / 2), Vec3(w / 2, 0, -d / 2), Vec3(w / 2, 0, d / 2), Vec3(-w / 2, 0, d / 2)]
        for i in 0..<4 {
            let a = ring[i], b = ring[(i + 1) % 4]
            quad(a, b, b + Vec3(0, h, 0), a + Vec3(0, h, 0))
        }
        return MapData(
            code: "MAP_SYNTHCLOUD01", name: "synthetic hall",
            featureConfig: FeatureConfigID(name: "orb-2000", version: 1),
            descriptorBytes: 32, positions: positions, colors: colors,
            pointDescriptors: (0..<(32 * count)).map { _ in UInt8(truncatingIfNeeded: rng.next()) },
            keyframes: keyframes,
            georeference: Georeference(
                origin: GeoCoordinate(latitude: 51.5007, longitude: -0.1246, altitude: 12), headingDegrees: 30),
            mesh: GLB.mesh(positions: corners, colors: nil, triangles: triangles))
    }
}
