import Foundation
import MultiSetCommandLine
import VPSGeometry
import VPSMap

/// `multiset bench solvers`: runs our LO-RANSAC solvers on the benchmark's correspondence sets
/// (written by bench/solvers/generate.py, format in bench/solvers/FORMAT.md) and writes per-set
/// results in the schema bench/solvers/report.py merges.
enum SolverBenchmark {
    struct CorrespondenceSet {
        var camera: Camera
        var gravityInCamera: Vec3
        var truth: CameraPose
        var pixels: [Vec2]
        var points: [Vec3]
    }

    static let usage = """
        usage: multiset bench solvers --data DIR --out FILE [--sets-limit N] [--method ours-p3p|ours-up2p|all]

        Runs our LO-RANSAC (P3P and gravity up2p) on DIR/sets_0.50.bin, sets_0.75.bin, sets_0.90.bin
        and writes per-set timings and errors to FILE (JSON).
        """

    static func run(_ args: inout Arguments) throws -> Int32 {
        if args.flag("help") {
            print(usage)
            return 0
        }
        guard let dir = args.string("data"), let out = args.string("out") else {
            throw UsageError("--data and --out are required\n\(usage)")
        }
        let limit = try args.int("sets-limit", default: Int.max)
        let method = args.string("method") ?? "all"
        try args.rejectUnknown()
        guard ["all", "ours-p3p", "ours-up2p"].contains(method) else { throw UsageError("unknown --method \(method)") }
        var entries: [[String: Any]] = []
        for ratio in ["0.50", "0.75", "0.90"] {
            let sets = try load(URL(fileURLWithPath: dir).appendingPathComponent("sets_\(ratio).bin"), limit: limit)
            for name in ["ours-p3p", "ours-up2p"] where method == "all" || method == name {
                var rows: [[String: Any]] = []
                for set in sets {
                    // Untimed setup: nothing beyond the inputs themselves.
                    let start = DispatchTime.now().uptimeNanoseconds
                    let result = estimateAbsolutePose(
                        pixels: set.pixels, points: set.points, camera: set.camera,
                        gravityInCamera: name == "ours-up2p" ? set.gravityInCamera : nil)
                    let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                    var rot = 180.0, pos = 1e9
                    if let pose = result.camFromWorld {
                        let e = pose.error(to: set.truth)
                        rot = e.rotationDegrees
                        pos = e.positionMeters
                    }
                    rows.append(["ms": ms, "rot_deg": rot, "pos_m": pos, "success": rot < 1 && pos < 0.05])
                }
                let times = rows.compactMap { $0["ms"] as? Double }.sorted()
                let ok = rows.filter { ($0["success"] as? Bool) == true }.count
                FileHandle.standardError.write(
                    "\(name) outliers \(ratio): median \(String(format: "%.3f", times[times.count / 2])) ms, success \(ok)/\(rows.count)\n"
                        .data(using: .utf8)!)
                entries.append(["method": name, "outliers": Double(ratio)!, "sets": rows])
            }
        }
        let data = try JSONSerialization.data(withJSONObject: entries, options: [.sortedKeys])
        try data.write(to: URL(fileURLWithPath: out), options: .atomic)
        return 0
    }

    /// Reads one `VPSBSOL1` file.
    static func load(_ url: URL, limit: Int) throws -> [CorrespondenceSet] {
        let data = try Data(contentsOf: url)
        var reader = BinaryReader([UInt8](data))
        guard Array(try reader.readBytes(8)) == Array("VPSBSOL1".utf8) else {
            throw BenchError("\(url.path): bad magic")
        }
        let count = Int(try reader.u32())
        _ = try reader.u32()
        var sets: [CorrespondenceSet] = []
        for _ in 0..<min(count, limit) {
            let n = Int(try reader.u32())
            _ = try reader.u32()
            let fx = try reader.f64(), fy = try reader.f64(), cx = try reader.f64(), cy = try reader.f64()
            let w = Int(try reader.u32()), h = Int(try reader.u32())
            let g = Vec3(try reader.f64(), try reader.f64(), try reader.f64())
            var r = [Double]()
            for _ in 0..<9 { r.append(try reader.f64()) }
            let t = Vec3(try reader.f64(), try reader.f64(), try reader.f64())
            var pixels = [Vec2](), points = [Vec3]()
            pixels.reserveCapacity(n)
            points.reserveCapacity(n)
            for _ in 0..<n {
                pixels.append(Vec2(try reader.f64(), try reader.f64()))
                points.append(Vec3(try reader.f64(), try reader.f64(), try reader.f64()))
            }
            _ = try reader.readBytes(n)
            sets.append(
                CorrespondenceSet(
                    camera: Camera(fx: fx, fy: fy, cx: cx, cy: cy, width: w, height: h), gravityInCamera: g,
                    truth: CameraPose(rotation: Mat3(rowMajor: r), translation: t), pixels: pixels, points: points))
        }
        return sets
    }
}
