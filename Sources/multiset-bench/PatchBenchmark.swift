import Dispatch
import Foundation
import MultiSetCommandLine
import VPSFeatures
import VPSGeometry
import VPSImaging
import VPSTestSupport

/// `multiset-bench patches`: keypoint alignment to reference patches (`PatchAlignment`) on seeded
/// textured image pairs related by a known homography — microseconds per template, per alignment
/// and per summed-area table, and the aligned positions' error against the truth.
enum PatchBenchmark {
    static let usage = """
        usage: multiset-bench patches [--pairs N] [--features N] [--offset PX] [--width W] [--height H] [--seed S]
                                      [--json FILE]

        For N seeded textured images (default 10, 1023×682, seed 1) and their warps by a mild random
        homography, takes the first image's ORB keypoints (default 2000) as references, starts each
        alignment in the warped image at the keypoint's true position moved by up to --offset pixels
        (default 1.5) in a random direction, with the homography's local rotation and scale, and reports
        the median time of the summed-area table, of a template and of an alignment (one core), the share
        that aligned, and the median and 90th-percentile error of the aligned positions (pixels) beside that
        of the starts. --json FILE writes the same figures.
        """

    static func run(_ args: inout Arguments) throws -> Int32 {
        if args.flag("help") {
            print(usage)
            return 0
        }
        let pairs = try args.int("pairs", default: 10)
        let features = try args.int("features", default: 2000)
        let width = try args.int("width", default: 1023)
        let height = try args.int("height", default: 682)
        let seed = UInt64(try args.int("seed", default: 1))
        let offset = try args.double("offset", default: 1.5)
        let json = args.string("json")
        var alignment = PatchAlignment()
        alignment.maxIterations = try args.int("max-iterations", default: alignment.maxIterations)
        try args.rejectUnknown()
        OpenCVRuntime.threadCount = 1

        let extractor = FeatureConfig.orb(ORBParameters(maxFeatures: features)).makeExtractor()
        var integralSeconds: [Double] = [], templateMicros: [Double] = [], alignMicros: [Double] = []
        var startErrors: [Double] = [], alignedErrors: [Double] = []
        var attempted = 0
        var rng = SplitMix64(seed: seed)
        for pair in 0..<pairs {
            let image = TexturedImages.make(width: width, height: height, seed: seed &+ UInt64(pair))
            let h = TexturedImages.randomHomography(width: width, height: height, using: &rng)
            let warped = TexturedImages.warp(image, by: h)
            let set = try extractor.extract(from: image)
            var t = DispatchTime.now().uptimeNanoseconds
            let source = IntegralImage(image)
            let target = IntegralImage(warped)
            integralSeconds.append(Double(DispatchTime.now().uptimeNanoseconds - t) / 2e9)
            // In image order, as the localizer and the map builder visit them (the table's rows stay cached).
            for k in set.keypoints.sorted(by: { ($0.y, $0.x) < ($1.y, $1.x) }) {
                let reference = PatchFrame(keypoint: k, binary: true)
                guard let truth = TexturedImages.apply(h, Vec2(Double(k.x), Double(k.y))),
                    let along = TexturedImages.apply(
                        h, Vec2(Double(k.x) + cos(reference.angle), Double(k.y) + sin(reference.angle))),
                    let patch = PointPatch.sample(source, at: reference)
                else { continue }
                t = DispatchTime.now().uptimeNanoseconds
                let template = PatchAlignment.Template(patch[...])
                templateMicros.append(Double(DispatchTime.now().uptimeNanoseconds - t) / 1e3)
                guard let template else { continue }
                let direction = along - truth
                let angle = rng.uniform(0...(2 * .pi))
                let start = SIMD2(truth.x + offset * cos(angle), truth.y + offset * sin(angle))
                let frame = PatchFrame(
                    center: start, scale: reference.scale * direction.norm, angle: atan2(direction.y, direction.x))
                attempted += 1
                startErrors.append(offset)
                t = DispatchTime.now().uptimeNanoseconds
                let aligned = alignment.align(template, in: target, from: frame)
                alignMicros.append(Double(DispatchTime.now().uptimeNanoseconds - t) / 1e3)
                if let aligned { alignedErrors.append((Vec2(aligned.center.x, aligned.center.y) - truth).norm) }
            }
        }
        func quantile(_ v: [Double], _ q: Double) -> Double {
            guard !v.isEmpty else { return .nan }
            let s = v.sorted()
            return s[min(s.count - 1, Int(q * Double(s.count)))]
        }
        let results: [String: Double] = [
            "integral_ms": 1e3 * quantile(integralSeconds, 0.5),
            "template_us": quantile(templateMicros, 0.5),
            "align_us": quantile(alignMicros, 0.5),
            "aligned_share": Double(alignedErrors.count) / Double(max(1, attempted)),
            "start_error_px": offset,
            "aligned_error_p50_px": quantile(alignedErrors, 0.5),
            "aligned_error_p90_px": quantile(alignedErrors, 0.9),
        ]
        print(
            String(
                format:
                    "patches: %d alignments on %d pairs (%d×%d): summed-area table %.2f ms, template %.2f µs, "
                    + "alignment %.2f µs (p50); aligned %.1f %%, error p50 %.3f px, p90 %.3f px (starts %.2f px off)",
                attempted, pairs, width, height, results["integral_ms"]!, results["template_us"]!,
                results["align_us"]!, 100 * results["aligned_share"]!, results["aligned_error_p50_px"]!,
                results["aligned_error_p90_px"]!, offset))
        if let json {
            let data = try JSONSerialization.data(withJSONObject: results, options: [.sortedKeys, .prettyPrinted])
            try data.write(to: URL(fileURLWithPath: json))
        }
        return 0
    }
}
