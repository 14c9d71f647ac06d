import Foundation
import MultiSetCommandLine
import VPSGeometry
import VPSMap

/// `multiset bench mapfile`: write and load speed of the map file on a large synthetic map.
enum MapFileBenchmark {
    static func run(_ args: inout Arguments) throws -> Int32 {
        if args.flag("help") {
            print(
                "usage: multiset bench mapfile [--points 300000] [--keyframes 400]\n\nMB/s of MapFile.write and MapFile.read."
            )
            return 0
        }
        let points = try args.int("points", default: 300_000)
        let keyframes = try args.int("keyframes", default: 400)
        try args.rejectUnknown()
        var rng = SplitMix64(seed: 5)
        var map = MapData(
            code: "MAP_BENCH0000001", name: "bench", featureConfig: FeatureConfigID(name: "orb-2000", version: 1),
            descriptorBytes: 32)
        map.positions = (0..<points).map { _ in Vec3(rng.nextUnit(), rng.nextUnit(), rng.nextUnit()) * 20 }
        map.colors = (0..<(3 * points)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        map.pointDescriptors = (0..<(32 * points)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let camera = Camera(fx: 500, fy: 500, cx: 320, cy: 240, width: 640, height: 480)
        for k in 0..<keyframes {
            let m = 2000
            map.keyframes.append(
                Keyframe(
                    id: UInt32(k), name: "frame_\(k)", camera: camera, camFromMap: .identity,
                    keypoints: (0..<m).map { _ in SIMD2<Float>(Float(rng.nextUnit() * 640), Float(rng.nextUnit() * 480))
                    },
                    descriptors: (0..<(32 * m)).map { _ in UInt8(truncatingIfNeeded: rng.next()) },
                    pointIndices: (0..<m).map { _ in Int32(rng.nextInt(below: points)) }))
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString).vpsmap")
        defer { try? FileManager.default.removeItem(at: url) }
        var start = DispatchTime.now().uptimeNanoseconds
        try MapFile.write(map, to: url)
        let writeSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let bytes = Double((try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0)
        var best = Double.infinity
        for _ in 0..<3 {
            start = DispatchTime.now().uptimeNanoseconds
            let back = try MapFile.read(from: url)
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            guard back.pointCount == points else { throw BenchError("read back a different map") }
        }
        print(
            String(
                format:
                    "map file %.1f MB (%d points, %d keyframes): write %.0f MB/s (with fsync), load %.0f MB/s (best of 3)",
                bytes / 1e6, points, keyframes, bytes / 1e6 / writeSeconds, bytes / 1e6 / best))
        return 0
    }
}
