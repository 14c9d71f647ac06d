import Foundation
import MultiSetCommandLine
import VPSGeometry

/// `multiset bench minimal`: time per call of each minimal solver on random noise-free instances.
enum MinimalSolverBenchmark {
    static func run(_ args: inout Arguments) throws -> Int32 {
        if args.flag("help") {
            print("usage: multiset bench minimal [--instances N]\n\nMicroseconds per minimal solve, per solver.")
            return 0
        }
        let count = try args.int("instances", default: 100_000)
        try args.rejectUnknown()
        var rng = SplitMix64(seed: 42)
        // Setup outside the timed region: instances with bearings and points.
        var bearings: [Vec3] = []
        var points: [Vec3] = []
        var upright: [Vec3] = []
        for _ in 0..<count {
            let yaw = rng.nextUnit() * 2 * .pi
            let r = Quaternion(axis: Vec3(0, 1, 0), angle: yaw).matrix
            let t = Vec3(rng.nextUnit(), rng.nextUnit(), rng.nextUnit()) * 4 - Vec3(2, 2, 2)
            for _ in 0..<3 {
                let b = Vec3(rng.nextUnit() - 0.5, rng.nextUnit() - 0.5, 1).normalized
                let depth = 2 + 8 * rng.nextUnit()
                bearings.append(b)
                points.append(r.transposed * (b * depth - t))
                upright.append(b)
            }
        }
        var solutions: [CameraPose] = []
        solutions.reserveCapacity(8)
        var total = 0
        func time(_ name: String, _ body: (Int) -> Void) {
            total = 0
            let start = DispatchTime.now().uptimeNanoseconds
            for i in 0..<count { body(i) }
            let ns = Double(DispatchTime.now().uptimeNanoseconds - start) / Double(count)
            print(
                String(
                    format: "%-8@ %8.3f µs per solve, %.2f solutions on average", name, ns / 1000,
                    Double(total) / Double(count)))
        }
        time("p3p") { i in
            solutions.removeAll(keepingCapacity: true)
            solveP3P(
                bearings: (bearings[3 * i], bearings[3 * i + 1], bearings[3 * i + 2]),
                points: (points[3 * i], points[3 * i + 1], points[3 * i + 2]), into: &solutions)
            total += solutions.count
        }
        time("up2p") { i in
            solutions.removeAll(keepingCapacity: true)
            solveUpright2Point(
                bearings: (upright[3 * i], upright[3 * i + 1]), points: (points[3 * i], points[3 * i + 1]),
                into: &solutions)
            total += solutions.count
        }
        // A three-camera rig: each ray from its own centre.
        let origins = (Vec3(0, 0, 0), Vec3(0.3, 0.02, 0), Vec3(0.6, -0.01, 0.05))
        time("gp3p") { i in
            solutions.removeAll(keepingCapacity: true)
            let rig = [origins.0, origins.1, origins.2]
            let x = (points[3 * i], points[3 * i + 1], points[3 * i + 2])
            // Rays from each origin towards the point as the rig (identity pose) sees it.
            let d = ((x.0 - rig[0]).normalized, (x.1 - rig[1]).normalized, (x.2 - rig[2]).normalized)
            solveGeneralizedP3P(origins: origins, directions: d, points: x, into: &solutions)
            total += solutions.count
        }
        return 0
    }
}
