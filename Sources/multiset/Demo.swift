import Foundation
import VPSGeometry

/// `multiset demo`: until the server, SDK and simulator exist, an honest smoke test of the
/// geometry core: it localizes a synthetic camera from noisy, outlier-ridden 2D–3D matches and
/// reports what it did.
enum Demo {
    static func run(_ args: inout Arguments) throws -> Int32 {
        if args.flag("help") {
            print("usage: multiset demo [--seed N]\n\nSmoke run of what exists so far (the geometry core).")
            return 0
        }
        let seed = UInt64(try args.int("seed", default: 1))
        try args.rejectUnknown()
        print("MultiSet VPS demo — this build has the geometry core only (server, SDK and simulator come next).")
        var rng = SplitMix64(seed: seed)
        let camera = Camera(fx: 500, fy: 500, cx: 320, cy: 240, width: 640, height: 480)
        for outlierRatio in [0.5, 0.75, 0.9] {
            // A random camera 1.6 m above the floor looking at points 2–10 m away.
            let yaw = rng.nextUnit() * 2 * .pi
            let camFromWorld = CameraPose(
                rotation: Quaternion(axis: Vec3(1, 0, 0), angle: .pi).matrix
                    * Quaternion(axis: Vec3(0, 1, 0), angle: yaw).matrix,
                translation: .zero)
            let center = Vec3(rng.nextUnit() * 4 - 2, 1.6, rng.nextUnit() * 4 - 2)
            let truth = CameraPose(rotation: camFromWorld.rotation, translation: -(camFromWorld.rotation * center))
            var pixels: [Vec2] = [], points: [Vec3] = []
            for _ in 0..<1000 {
                let px = Vec2(rng.nextUnit() * 640, rng.nextUnit() * 480)
                let depth = 2 + 8 * rng.nextUnit()
                let pc = Vec3((px.x - 320) / 500, (px.y - 240) / 500, 1) * depth
                points.append(truth.rotation.transposed * (pc - truth.translation))
                if rng.nextUnit() < outlierRatio {
                    pixels.append(Vec2(rng.nextUnit() * 640, rng.nextUnit() * 480))
                } else {
                    pixels.append(px + Vec2(rng.nextGaussian(), rng.nextGaussian()))
                }
            }
            for (name, gravity) in [("P3P", nil), ("gravity 2-point", truth.rotation * Vec3(0, -1, 0))]
                as [(String, Vec3?)]
            {
                let start = DispatchTime.now().uptimeNanoseconds
                let result = estimateAbsolutePose(
                    pixels: pixels, points: points, camera: camera, gravityInCamera: gravity)
                let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                if let pose = result.camFromWorld {
                    let e = pose.error(to: truth)
                    print(
                        String(
                            format:
                                "  %2.0f%% outliers, %-15@: %4d inliers, %5d iterations, error %.3f° / %.1f mm, %.2f ms",
                            outlierRatio * 100, name, result.inlierCount, result.ransac.iterations, e.rotationDegrees,
                            e.positionMeters * 1000, ms))
                } else {
                    print(
                        "  \(Int(outlierRatio * 100))% outliers, \(name): no pose (\(String(describing: result.failure)))"
                    )
                }
            }
        }
        print("demo: done")
        return 0
    }
}
