import Foundation
import MultiSetCommandLine
import VPSCapture
import VPSGeometry
import VPSImaging
import VPSLocalizer
import VPSMap
import VPSServer

/// `multiset localize` (one image, in process) and `multiset eval` (a capture dataset with truth
/// against a map): the engine without the server.
enum LocalizeCommand {
    /// The options of `localize` and `eval` that take no value (`eval --colmap`'s included).
    static let switches: Set<String> = Set(["json", "verbose"]).union(LocalizerFlags.switches).union(
        EvalCOLMAPCommand.switches)

    static let localizeUsage = """
        usage: multiset localize --map CODE --image F.jpg --intrinsics fx,fy,cx,cy [--data DIR] [--json]

        Localizes one image against a map of the data directory, in process (no server). Prints the camera
        pose in the map frame (right-handed, ARKit camera axes), inliers and time per stage.
        """

    static let evalUsage = """
        usage: multiset eval --map CODE --captures DIR [--data DIR] [--every N] [--mode vps1|vps2] [--frames N]
                             [--verbose] [--json FILE]

        Localizes every N-th frame of a capture dataset that carries true poses (`multiset synth`) against a
        map built from the same venue frame and reports recall at (5 cm, 1°), (25 cm, 2°), (50 cm, 5°),
        (5 m, 10°), median errors, the share of wrong answers (> 0.5 m or > 5°) with confidence ≥ 0.3, and
        latency p50/p90 per stage. A pose counts as an answer only with confidence ≥ 0.2 (as the server
        answers); recall and median errors are over answers. Truth and map must share a frame: build the map from the same captures'
        `truth` poses or from a scan of the same session.

          --frames    N ≥ 2: multi-frame queries of N consecutive frames solved jointly with their AR poses
                      (the error is the first frame's); default 1 (single frame)
          --verbose   one line per query (features, matches, guided matches, inliers, margin, confidence,
                      error)
        \(LocalizerFlags.usage)
        """

    static func loadMap(_ code: String, _ path: String) throws -> LocalizationMap {
        let data = try DataDirectory(path: path)
        return try LocalizationMap(try MapFile.read(from: data.mapFile(code: code)))
    }

    static func localize(_ args: inout Arguments) throws -> Int32 {
        if args.flag("help") {
            print(localizeUsage)
            return 0
        }
        guard let code = args.string("map"), let imagePath = args.string("image"), let k = args.string("intrinsics")
        else {
            throw UsageError("localize needs --map, --image and --intrinsics\n\(localizeUsage)")
        }
        let json = args.flag("json")
        let path = args.string("data") ?? ".multiset"
        try args.rejectUnknown()
        let v = k.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard v.count == 4, v.allSatisfy({ $0.isFinite }), v[0] > 0, v[1] > 0 else {
            throw UsageError("--intrinsics takes fx,fy,cx,cy")
        }
        let image =
            imagePath.lowercased().hasSuffix(".png")
            ? try PNG.readGray(fromFile: imagePath) : try JPEG.readGray(fromFile: imagePath)
        let camera = Camera(fx: v[0], fy: v[1], cx: v[2], cy: v[3], width: image.width, height: image.height)
        let outcome = try Localizer.localize(image: image, camera: camera, map: try loadMap(code, path))
        let timing = outcome.seconds.sorted { $0.key < $1.key }.map { ($0.key, $0.value * 1000) }
        if let camFromMap = outcome.camFromMap, outcome.confidence >= Localizer.answerConfidence {
            let pose = CameraAxes.arkitPose(fromCV: camFromMap.rigid.inverse)
            let p = pose.translation, q = pose.rotation
            if json {
                let object: [String: Any] = [
                    "poseFound": true, "position": [p.x, p.y, p.z], "rotation": [q.x, q.y, q.z, q.w],
                    "inliers": outcome.inliers, "matches": outcome.matches, "confidence": outcome.confidence,
                    "inlierMargin": outcome.inlierMargin ?? 0, "ms": Dictionary(uniqueKeysWithValues: timing),
                ]
                print(
                    String(
                        decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
                        as: UTF8.self))
            } else {
                print(
                    String(
                        format: "pose found: position (%.4f, %.4f, %.4f) m, rotation (%.5f, %.5f, %.5f, %.5f)", p.x,
                        p.y, p.z, q.x, q.y, q.z, q.w))
                print(
                    String(
                        format: "confidence %.2f, inlier margin %.1f; ", outcome.confidence, outcome.inlierMargin ?? 0)
                        + "inliers \(outcome.inliers) of \(outcome.matches) matches; "
                        + timing.map { String(format: "%@ %.1f ms", $0.0, $0.1) }.joined(separator: ", "))
            }
            return 0
        }
        let reason = outcome.failure?.rawValue ?? "LOW_CONFIDENCE"
        if json {
            print(
                #"{"confidence":\#(outcome.confidence),"poseFound":false,"reason":"\#(reason)"}"#)
        } else {
            print(
                "no pose: \(reason) (\(outcome.matches) matches, \(outcome.inliers) inliers, "
                    + String(format: "confidence %.2f)", outcome.confidence))
        }
        return 1
    }

    static func eval(_ args: inout Arguments) throws -> Int32 {
        if args.string("colmap") != nil { return try EvalCOLMAPCommand.run(&args) }
        if args.flag("help") {
            print(evalUsage)
            return 0
        }
        guard let code = args.string("map"), let folder = args.string("captures") else {
            throw UsageError("eval needs --map and --captures\n\(evalUsage)")
        }
        let every = try args.int("every", default: 1)
        let verbose = args.flag("verbose")
        var options = LocalizerOptions()
        options.keepCorrespondences = verbose
        try LocalizerFlags.apply(&args, to: &options)
        let rigSize = try args.int("frames", default: 1)
        let path = args.string("data") ?? ".multiset"
        // `--json FILE`: the parser treats --json as a switch, so FILE arrives as the next positional word.
        let jsonPath = args.flag("json") ? args.positionals.dropFirst().first : nil
        if args.flag("json") && jsonPath == nil { throw UsageError("--json needs a file name") }
        try args.rejectUnknown()
        guard every >= 1 else { throw UsageError("--every takes a positive integer") }
        guard (1...6).contains(rigSize) else { throw UsageError("--frames takes 1 to 6") }
        let map = try loadMap(code, path)
        let captures = try CaptureDataset.load(from: URL(fileURLWithPath: folder))
        var results: [(found: Bool, pos: Double, rot: Double, confidence: Double)] = []
        // Per query, for `--json`: what the confidence was made of (calibration studies).
        var queries: [[String: Any]] = []
        func record(
            _ name: String, _ inliers: Int, _ margin: Double?, _ sigmaP: Double, _ sigmaR: Double,
            _ funnel: LocalizationFunnel
        ) {
            guard let r = results.last else { return }
            func number(_ v: Double) -> Any { v.isFinite ? v : NSNull() }
            queries.append([
                "name": name, "answered": r.found, "position_m": r.found ? number(r.pos) : NSNull(),
                "rotation_deg": r.found ? number(r.rot) : NSNull(), "confidence": r.confidence, "inliers": inliers,
                "margin": margin.map(number) ?? NSNull(), "sigma_position_m": number(sigmaP),
                "sigma_rotation_deg": number(sigmaR), "matches": funnel.matches, "ransac_inliers": funnel.ransacInliers,
                "guided_inliers": funnel.guidedInliers, "tight_inliers": funnel.tightInliers,
                "competitor_inliers": funnel.competitorInliers, "support": funnel.support,
                "support_visible": funnel.supportVisible, "competitor_visible": funnel.competitorVisible,
            ])
        }
        var stageTimes: [String: [Double]] = [:]
        for (k, frame) in captures.frames.enumerated() where k % every == 0 {
            guard let truthARKit = frame.truth?.rigid ?? frame.arPose.rigid else { continue }
            let truth = CameraPose(CameraAxes.cvPose(fromARKit: truthARKit).inverse)
            let image = try JPEG.readGray(
                fromFile: URL(fileURLWithPath: folder).appendingPathComponent(frame.image).path)
            if rigSize > 1 {
                guard k + rigSize <= captures.frames.count else { break }
                let group = Array(captures.frames[k..<(k + rigSize)])
                var images = [image]
                for f in group.dropFirst() {
                    images.append(
                        try JPEG.readGray(fromFile: URL(fileURLWithPath: folder).appendingPathComponent(f.image).path))
                }
                let camFromRig = group.map {
                    CameraPose(CameraAxes.cvPose(fromARKit: $0.arPose.rigid ?? .identity).inverse)
                }
                let outcome = try Localizer.localize(
                    rig: images, cameras: group.map(\.intrinsics.camera), camFromRig: camFromRig, map: map,
                    options: options)
                for (stage, s) in outcome.seconds { stageTimes[stage, default: []].append(s * 1000) }
                if let rigFromMap = outcome.rigFromMap {
                    let e = CameraPose(camFromRig[0].rigid * rigFromMap.rigid).error(to: truth)
                    results.append((true, e.positionMeters, e.rotationDegrees, outcome.confidence))
                } else {
                    results.append((false, .infinity, .infinity, 0))
                }
                record(
                    frame.image, outcome.inliers, outcome.inlierMargin, outcome.positionSigma,
                    outcome.rotationSigmaDegrees, outcome.funnel)
                if verbose, let r = results.last {
                    print(
                        String(
                            format: "  %@ +%d: inliers %d margin %.1f confidence %.2f error %.1f mm %.3f° %@",
                            frame.image,
                            rigSize - 1, outcome.inliers, outcome.inlierMargin ?? 0, outcome.confidence, r.pos * 1000,
                            r.rot, outcome.failure?.rawValue ?? ""))
                }
                continue
            }
            let outcome = try Localizer.localize(
                image: image, camera: frame.intrinsics.camera, map: map, options: options)
            for (stage, s) in outcome.seconds { stageTimes[stage, default: []].append(s * 1000) }
            if verbose {
                let e = outcome.camFromMap.map { $0.error(to: truth) }
                // A wrong answer: how much the true pose would have explained.
                let truthSupport =
                    (e.map { $0.positionMeters > 0.5 || $0.rotationDegrees > 5 } ?? false)
                    ? try Localizer.supportByProjection(
                        of: truth, image: image, camera: frame.intrinsics.camera, map: map, options: options) : -1
                var explained = ""
                if truthSupport >= 0, let answer = outcome.camFromMap {
                    let a = try Localizer.explanation(
                        of: answer, image: image, camera: frame.intrinsics.camera, map: map, options: options)
                    let b = try Localizer.explanation(
                        of: truth, image: image, camera: frame.intrinsics.camera, map: map, options: options)
                    explained =
                        "answer/truth: projected \(a.projected)/\(b.projected), among candidates "
                        + "\(a.amongCandidates)/\(b.amongCandidates), ratio matches \(a.ratioMatches)/\(b.ratioMatches), "
                        + "neighbours \(a.neighbors)/\(b.neighbors)"
                }
                print(
                    String(
                        format:
                            "  %@: features %d matches %d guided %d inliers %d/%d σ %.1f mm %.3f° margin %.1f (rival %d) confidence %.2f error %.1f mm %.3f°%@ %@",
                        frame.image, outcome.features, outcome.matches, outcome.guidedMatches, outcome.inliers,
                        outcome.tightInliers,
                        outcome.positionSigma * 1000, outcome.rotationSigmaDegrees, outcome.inlierMargin ?? 0,
                        outcome.competitorInliers,
                        outcome.confidence, (e?.positionMeters ?? .nan) * 1000, e?.rotationDegrees ?? .nan,
                        truthSupport >= 0 ? " (truth's support \(truthSupport); \(explained))" : "",
                        outcome.failure?.rawValue ?? ""))
            }
            if let pose = outcome.camFromMap {
                let e = pose.error(to: truth)
                results.append((true, e.positionMeters, e.rotationDegrees, outcome.confidence))
            } else {
                results.append((false, .infinity, .infinity, 0))
            }
            record(
                frame.image, outcome.inliers, outcome.inlierMargin, outcome.positionSigma, outcome.rotationSigmaDegrees,
                outcome.funnel)
        }
        guard !results.isEmpty else { throw BenchError("no frames to evaluate") }
        let n = Double(results.count)
        let thresholds: [(Double, Double)] = [(0.05, 1), (0.25, 2), (0.5, 5), (5, 10)]
        let recalls = thresholds.map { t in
            Double(results.filter { $0.found && $0.confidence >= 0.2 && $0.pos <= t.0 && $0.rot <= t.1 }.count) / n
        }
        let found = results.filter(\.found)
        let answeredPoses = found.filter { $0.confidence >= 0.2 }
        let positions = answeredPoses.map(\.pos).sorted(), rotations = answeredPoses.map(\.rot).sorted()
        let confident = found.filter { $0.confidence >= 0.3 }
        let wrong = confident.filter { $0.pos > 0.5 || $0.rot > 5 }.count
        let answered = found.filter { $0.confidence >= 0.2 }
        let wrongAnswered = answered.filter { $0.pos > 0.5 || $0.rot > 5 }.count
        func percentile(_ v: [Double], _ p: Double) -> Double {
            v.isEmpty ? .nan : v.sorted()[min(v.count - 1, Int(Double(v.count) * p))]
        }
        print("eval of \(results.count) frames against \(code):")
        for (t, r) in zip(thresholds, recalls) { print(String(format: "  recall at (%g m, %g°): %.3f", t.0, t.1, r)) }
        print(
            String(
                format: "  median error: %.1f mm, %.3f°",
                (EvaluationSummary.median(positions) ?? .nan) * 1000, EvaluationSummary.median(rotations) ?? .nan))
        print(
            String(
                format: "  wrong answers with confidence ≥ 0.3: %d of %d (%.2f %%)", wrong, confident.count,
                confident.isEmpty ? 0 : 100 * Double(wrong) / Double(confident.count)))
        print(
            String(
                format: "  wrong answers with confidence ≥ 0.2: %d of %d (%.2f %%)", wrongAnswered, answered.count,
                answered.isEmpty ? 0 : 100 * Double(wrongAnswered) / Double(answered.count)))
        print(
            "  wrong poses at any confidence: \(found.filter { $0.pos > 0.5 || $0.rot > 5 }.map { String(format: "%.2f", $0.confidence) })"
        )
        for (stage, times) in stageTimes.sorted(by: { $0.key < $1.key }) {
            print(
                String(format: "  %@: p50 %.1f ms, p90 %.1f ms", stage, percentile(times, 0.5), percentile(times, 0.9)))
        }
        if let jsonPath {
            let object: [String: Any] = [
                "frames": results.count,
                "recall": Dictionary(
                    uniqueKeysWithValues: zip(["5cm_1deg", "25cm_2deg", "50cm_5deg", "5m_10deg"], recalls)),
                "median_position_m": EvaluationSummary.median(positions) ?? -1,
                "median_rotation_deg": EvaluationSummary.median(rotations) ?? -1,
                "wrong_confident_share": confident.isEmpty ? 0 : Double(wrong) / Double(confident.count),
                "wrong_share_at_0.2": answered.isEmpty ? 0 : Double(wrongAnswered) / Double(answered.count),
                "answers_at_0.3": confident.count, "answers_at_0.2": answered.count, "queries": queries,
                "latency_ms": Dictionary(
                    uniqueKeysWithValues: stageTimes.map {
                        ($0.key, ["p50": percentile($0.value, 0.5), "p90": percentile($0.value, 0.9)])
                    }),
            ]
            try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted]).write(
                to: URL(fileURLWithPath: jsonPath))
        }
        return 0
    }
}
