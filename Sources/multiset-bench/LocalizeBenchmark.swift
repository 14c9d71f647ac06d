import Foundation
import MultiSetCommandLine
import VPSFeatures
import VPSGeometry
import VPSImaging
import VPSLocalizer
import VPSMap
import VPSSimulation
import VPSTestSupport

/// `multiset bench localize`: end-to-end query latency (JPEG in, pose out) on one core against a
/// building-sized map, per stage, single and multi frame; and the 2D–3D correspondences of every
/// query for the pycolmap comparison (bench/localize/peers.py).
enum LocalizeBenchmark {
    static let usage = """
        usage: multiset bench localize --data DIR --out FILE [--rooms N] [--queries N] [--seed S]

        Builds (once, cached in DIR) a map of N synthetic rooms (default 10, about 100,000 points) side by
        side, 20 m apart, from 1280 × 960 scans, then times 960 × 720 JPEG queries along a walk through one
        room, single frame (vps-1 and vps-2) and 4 frames jointly, on one core (OpenCV single-threaded).
        Writes the timings to FILE and the queries' correspondences to DIR/correspondences.json, which
        bench/localize/peers.py solves with pycolmap on the same inputs.
        """

    static func run(_ args: inout Arguments) throws -> Int32 {
        if args.flag("help") {
            print(usage)
            return 0
        }
        guard let dir = args.string("data"), let out = args.string("out") else {
            throw UsageError("--data and --out are required\n\(usage)")
        }
        let rooms = try args.int("rooms", default: 10)
        let queryCount = try args.int("queries", default: 30)
        let seed = UInt64(try args.int("seed", default: 1))
        try args.rejectUnknown()
        guard rooms >= 1, queryCount >= 4 else { throw UsageError("--rooms ≥ 1 and --queries ≥ 4") }
        OpenCVRuntime.threadCount = 1
        let folder = URL(fileURLWithPath: dir)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let mapURL = folder.appendingPathComponent("building-\(rooms)-\(seed).vpsmap")
        let spacing = 20.0
        let data: MapData
        if let cached = try? MapFile.read(from: mapURL) {
            data = cached
        } else {
            var parts: [MapData] = []
            for r in 0..<rooms {
                log("building room \(r + 1)/\(rooms)")
                parts.append(try SimulatedScanMap.room(seed: seed + UInt64(r), code: "MAP_BENCHROOM001"))
            }
            data = merge(parts, spacing: spacing)
            try MapFile.write(data, to: mapURL)
        }
        log("map: \(data.pointCount) points, \(data.keyframes.count) keyframes")
        log("hamming kernel: \(HammingNearestTwo.kernel), float kernel: \(FloatNearestTwo.kernel)")
        let loadStart = DispatchTime.now().uptimeNanoseconds
        let map = try LocalizationMap(data)
        let prepareMs = Double(DispatchTime.now().uptimeNanoseconds - loadStart) / 1e6

        // Queries: a walk through the middle room, 0.5 s apart, as the SDK uploads them.
        let target = rooms / 2
        let venue = Venue.generate(.room, seed: seed + UInt64(target))
        let roomFromVenue = Rigid3(translation: Vec3(spacing * Double(target), 0, 0))
        let camera = Camera(fx: 750, fy: 750, cx: 480, cy: 360, width: 960, height: 720)
        var configuration = ARSessionConfiguration(camera: camera, frameInterval: 0.5)
        configuration.sensor = .phone
        var session = ARSessionSimulator(
            venue: venue,
            trajectory: Trajectory.generate(.walk, in: venue, duration: 0.5 * Double(queryCount + 3), seed: seed),
            configuration: configuration, seed: seed)
        var frames: [(jpeg: [UInt8], truth: CameraPose, ar: CameraPose)] = []
        while let f = session.next(), let image = f.image {
            let truth = CameraPose(CameraAxes.cvPose(fromARKit: roomFromVenue * f.trueWorldFromCamera).inverse)
            let ar = CameraPose(CameraAxes.cvPose(fromARKit: f.arWorldFromCamera).inverse)
            frames.append((try JPEG.encode(image, quality: 90), truth, ar))
        }
        func ms(_ start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 }

        var report: [String: Any] = [
            "map_points": data.pointCount, "map_keyframes": data.keyframes.count, "prepare_ms": prepareMs,
            "image": "960x720 JPEG q90", "threads": 1, "hamming_kernel": HammingNearestTwo.kernel,
            "float_kernel": FloatNearestTwo.kernel,
        ]
        var sets: [[String: Any]] = []
        for mode in SearchMode.allCases {
            var options = LocalizerOptions()
            options.mode = mode
            options.keepCorrespondences = mode == .vps1
            var total: [Double] = [], stages: [String: [Double]] = [:], ok = 0, poseOnly: [Double] = []
            for (k, f) in frames.prefix(queryCount).enumerated() {
                let start = DispatchTime.now().uptimeNanoseconds
                let image = try JPEG.decodeGray(f.jpeg)
                let decodeMs = ms(start)
                let outcome = try Localizer.localize(image: image, camera: camera, map: map, options: options)
                total.append(ms(start))
                stages["decode", default: []].append(decodeMs)
                for (s, v) in outcome.seconds { stages[s, default: []].append(v * 1000) }
                if let p = outcome.camFromMap, outcome.confidence >= 0.2 {
                    let e = p.error(to: f.truth)
                    if e.positionMeters <= 0.05 && e.rotationDegrees <= 1 { ok += 1 }
                }
                if let c = outcome.correspondences {
                    // Our estimator alone on the same correspondences, timed like the peer.
                    let s0 = DispatchTime.now().uptimeNanoseconds
                    _ = estimateAbsolutePose(pixels: c.pixels, points: c.points, camera: camera)
                    poseOnly.append(ms(s0))
                    sets.append([
                        "query": k, "ours_ms": poseOnly.last!,
                        "p2d": c.pixels.map { [$0.x, $0.y] }, "p3d": c.points.map { [$0.x, $0.y, $0.z] },
                        "truth": [
                            "R": rowMajor(f.truth.rotation),
                            "t": [f.truth.translation.x, f.truth.translation.y, f.truth.translation.z],
                        ],
                    ])
                }
            }
            var entry: [String: Any] = [
                "queries": total.count, "recall_5cm_1deg": Double(ok) / Double(max(1, total.count)),
                "end_to_end_ms": percentiles(total),
                "stages_ms": stages.mapValues { percentiles($0) },
            ]
            if !poseOnly.isEmpty { entry["ours_pose_only_ms"] = percentiles(poseOnly) }
            report["single_\(mode.rawValue)"] = entry
            log(
                String(
                    format: "single frame %@: p50 %.1f ms, p90 %.1f ms, recall(5 cm, 1°) %.2f", mode.rawValue,
                    percentile(total, 0.5), percentile(total, 0.9), Double(ok) / Double(max(1, total.count))))
        }
        // Multi frame: 4 JPEGs with their AR poses, decoded and solved jointly.
        var total: [Double] = [], stages: [String: [Double]] = [:], ok = 0
        for start in stride(from: 0, to: min(queryCount, frames.count - 4), by: 2) {
            let group = Array(frames[start..<(start + 4)])
            let t0 = DispatchTime.now().uptimeNanoseconds
            let images = try group.map { try JPEG.decodeGray($0.jpeg) }
            let decodeMs = ms(t0)
            let outcome = try Localizer.localize(
                rig: images, cameras: Array(repeating: camera, count: 4), camFromRig: group.map(\.ar), map: map)
            total.append(ms(t0))
            stages["decode", default: []].append(decodeMs)
            for (s, v) in outcome.seconds { stages[s, default: []].append(v * 1000) }
            if let rigFromMap = outcome.rigFromMap, outcome.confidence >= 0.2 {
                let e = CameraPose(group[0].ar.rigid * rigFromMap.rigid).error(to: group[0].truth)
                if e.positionMeters <= 0.05 && e.rotationDegrees <= 1 { ok += 1 }
            }
        }
        report["multi_4"] = [
            "queries": total.count, "recall_5cm_1deg": Double(ok) / Double(max(1, total.count)),
            "end_to_end_ms": percentiles(total), "stages_ms": stages.mapValues { percentiles($0) },
        ]
        log(
            String(
                format: "multi frame (4): p50 %.1f ms, p90 %.1f ms, recall(5 cm, 1°) %.2f", percentile(total, 0.5),
                percentile(total, 0.9), Double(ok) / Double(max(1, total.count))))
        let correspondences: [String: Any] = [
            "camera": [
                "fx": camera.fx, "fy": camera.fy, "cx": camera.cx, "cy": camera.cy, "width": 960, "height": 720,
            ],
            "sets": sets,
        ]
        try JSONSerialization.data(withJSONObject: correspondences).write(
            to: folder.appendingPathComponent("correspondences.json"))
        try writePipelinePeerInputs(data: data, frames: Array(frames.prefix(queryCount)), camera: camera, to: folder)
        try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys]).write(
            to: URL(fileURLWithPath: out))
        return 0
    }

    /// What the end-to-end peer (bench/localize/pipeline_peer.py: OpenCV + PoseLib) localizes with: the
    /// map's points (`map_points.f64`, x y z little-endian per point) and their descriptors
    /// (`map_descriptors.u8`, 32 bytes per point), the same query JPEGs (`queries/N.jpg`) and
    /// `queries.json` (camera, true `camFromWorld` per query).
    static func writePipelinePeerInputs(
        data: MapData, frames: [(jpeg: [UInt8], truth: CameraPose, ar: CameraPose)], camera: Camera, to folder: URL
    ) throws {
        var xyz: [Double] = []
        xyz.reserveCapacity(3 * data.pointCount)
        for p in data.positions { xyz += [p.x, p.y, p.z] }
        try xyz.withUnsafeBytes { Data($0) }.write(to: folder.appendingPathComponent("map_points.f64"))
        try Data(data.pointDescriptors).write(to: folder.appendingPathComponent("map_descriptors.u8"))
        let queries = folder.appendingPathComponent("queries")
        try FileManager.default.createDirectory(at: queries, withIntermediateDirectories: true)
        var list: [[String: Any]] = []
        for (k, f) in frames.enumerated() {
            try Data(f.jpeg).write(to: queries.appendingPathComponent("\(k).jpg"))
            list.append([
                "image": "queries/\(k).jpg",
                "truth": [
                    "R": rowMajor(f.truth.rotation),
                    "t": [f.truth.translation.x, f.truth.translation.y, f.truth.translation.z],
                ],
            ])
        }
        let manifest: [String: Any] = [
            "camera": [
                "fx": camera.fx, "fy": camera.fy, "cx": camera.cx, "cy": camera.cy, "width": camera.width,
                "height": camera.height,
            ],
            "descriptor_bytes": data.descriptorBytes, "points": data.pointCount, "queries": list,
        ]
        try JSONSerialization.data(withJSONObject: manifest).write(to: folder.appendingPathComponent("queries.json"))
    }

    /// Maps placed side by side along +X, `spacing` metres apart, as one map.
    static func merge(_ parts: [MapData], spacing: Double) -> MapData {
        var out = MapData(
            code: "MAP_BENCHBUILDNG", name: "building", featureConfig: parts[0].featureConfig,
            descriptorBytes: parts[0].descriptorBytes)
        for (r, part) in parts.enumerated() {
            let offset = Rigid3(translation: Vec3(spacing * Double(r), 0, 0))
            let base = Int32(out.positions.count)
            out.positions += part.positions.map { offset.transform($0) }
            out.colors += part.colors
            out.pointDescriptors += part.pointDescriptors
            if let patches = part.pointPatches { out.pointPatches = (out.pointPatches ?? []) + patches }
            for var kf in part.keyframes {
                kf.id = UInt32(out.keyframes.count)
                kf.camFromMap = kf.camFromMap * offset.inverse
                kf.pointIndices = kf.pointIndices.map { $0 >= 0 ? $0 + base : $0 }
                out.keyframes.append(kf)
            }
        }
        return out
    }

    static func rowMajor(_ m: Mat3) -> [Double] { (0..<3).flatMap { r in (0..<3).map { c in m[r, c] } } }

    static func percentile(_ v: [Double], _ p: Double) -> Double {
        v.isEmpty ? .nan : v.sorted()[min(v.count - 1, Int(Double(v.count) * p))]
    }

    static func percentiles(_ v: [Double]) -> [String: Double] {
        ["p50": percentile(v, 0.5), "p90": percentile(v, 0.9)]
    }

    static func log(_ s: String) { FileHandle.standardError.write(Data((s + "\n").utf8)) }
}
