import Foundation
import MultiSetCommandLine
import VPSFeatures
import VPSLocalizer
import VPSMap

/// `multiset eval --colmap DIR --leave-one-out`: each evaluated image of a COLMAP model localized against
/// a map built from the model without it (`LeaveOneOutEvaluation`).
enum EvalCOLMAPCommand {
    /// The options of `eval --colmap` that take no value.
    static let switches: Set<String> = Set([
        "json", "leave-one-out", "verbose", "symmetric-ratio", "align", "no-patches",
    ]).union(
        LocalizerFlags.switches)

    static let usage = """
        usage: multiset eval --colmap MODEL_DIR --images DIR --leave-one-out [--every N] [--scale S]
                             [--neighbors K] [--features orb|sift|rootsift] [--mode vps1|vps2] [--frames N]
                             [--symmetric-ratio] [--track-conflicts drop|refuse] [--align] [--no-patches]
                             [--point-sigma-limit F] [--verbose] [--json FILE]

        Leave-one-out evaluation of a COLMAP model (text or binary): for every N-th image (default 1), builds a
        map from the model without it — as `map import-colmap --exclude IMAGE` would — localizes the image with
        its COLMAP camera and compares with the model's pose. Prints recall at (5 cm, 1°), (25 cm, 2°),
        (50 cm, 5°), (5 m, 10°), median errors, the share of wrong answers (> 0.5 m or > 5°) with confidence
        ≥ 0.3, and query latency p50/p90 per stage (OpenCV on one thread, as `serve` runs it); `--json FILE`
        writes the same figures.

        Slow by design: the map is rebuilt (features, pair matching, triangulation) for every evaluated image,
        so one evaluated image costs about one `map import-colmap` of the model. Use --every to subsample.
        --scale turns model units into metres (errors are in metres); --neighbors sets the candidate pairs per
        image of the map build (default 10). --mode vps2 runs the deep search. --frames N (2–6) localizes each
        image together with its N − 1 nearest cameras as one rig (the seeds' multi-frame mode), their relative
        poses from the model standing in for the AR tracking poses, against a map built without all N.
        \(FeatureFlag.usage)
        Map build ablations: --symmetric-ratio applies the pair matches' ratio test both ways (not one way with a
        cross check); --track-conflicts refuse refuses a match that would put two keypoints of one image into a
        track instead of dropping the whole track (drop, the default); --align moves every observation of a track
        onto its reference patch before triangulating; --no-patches keeps no reference patches in the map (the
        queries' keypoints are then not aligned either); --point-sigma-limit F drops the points whose predicted
        uncertainty exceeds F of their distance to the nearest observing camera (default \(MapBuildOptions().maxRelativePointSigma)).
        Localizer flags (ablations; --rig-drift defaults to none here, the model's poses being exact):
        \(LocalizerFlags.usage)
        --verbose prints every query: matches, inliers, confidence, margin, σ (pose uncertainty)
        and the error. A query is answered when its pose has confidence ≥ \(Localizer.answerConfidence) (what the server answers); recall
        and medians are over answered queries, and a pose below it is counted as withheld. The JSON adds every
        query ("queries": name, answered, position_m, rotation_deg — also for a withheld pose —, confidence,
        inliers, map_points, query_s, failure), "mode" and "rig_frames".
        """

    static func run(_ args: inout Arguments) throws -> Int32 {
        if args.flag("help") {
            print(usage)
            return 0
        }
        guard let modelPath = args.string("colmap"), let imagesPath = args.string("images") else {
            throw UsageError("eval --colmap needs --images\n\(usage)")
        }
        guard args.flag("leave-one-out") else {
            throw UsageError("eval --colmap needs --leave-one-out (the only evaluation of a COLMAP model)\n\(usage)")
        }
        let every = try args.int("every", default: 1)
        let neighbors = try args.int("neighbors", default: MapBuildOptions().neighborsPerFrame)
        let scaleText = args.string("scale")
        let scale = scaleText.map { Double($0) ?? .nan } ?? 1
        let verbose = args.flag("verbose")
        var localizerOptions = LocalizerOptions()
        localizerOptions.keepCorrespondences = verbose
        // The model's relative poses are exact: a rig is rigid unless told otherwise (--rig-drift).
        localizerOptions.rigDrift = .none
        try LocalizerFlags.apply(&args, to: &localizerOptions)
        let rigFrames = try args.int("frames", default: 1)
        let featureConfig = try FeatureFlag.parse(&args)
        let symmetricRatio = args.flag("symmetric-ratio")
        let alignObservations = args.flag("align")
        let pointPatches = !args.flag("no-patches")
        let conflicts = args.string("track-conflicts")
        let pointSigmaLimit = args.string("point-sigma-limit").map { Double($0) ?? .nan }
        // `--json FILE`: the parser treats --json as a switch, so FILE arrives as the next positional word.
        let jsonPath = args.flag("json") ? args.positionals.dropFirst().first : nil
        if args.flag("json") && jsonPath == nil { throw UsageError("--json needs a file name") }
        try args.rejectUnknown()
        let trackConflicts: TrackBuilder.ConflictPolicy
        switch conflicts {
        case nil, "drop": trackConflicts = .dropTrack
        case "refuse": trackConflicts = .refuseMatch
        default: throw UsageError("--track-conflicts takes drop or refuse")
        }
        guard every >= 1 else { throw UsageError("--every takes a positive integer") }
        guard neighbors >= 1 else { throw UsageError("--neighbors takes a positive integer") }
        guard (1...6).contains(rigFrames) else { throw UsageError("--frames takes 1 to 6") }
        guard scale > 0, scale.isFinite else { throw UsageError("--scale takes a positive number") }
        if let pointSigmaLimit, !(pointSigmaLimit > 0 && pointSigmaLimit.isFinite) {
            throw UsageError("--point-sigma-limit takes a positive fraction")
        }

        // One OpenCV thread, as `serve` runs its engine (which parallelizes over requests) and as the
        // baseline peer of `make eval-real` is measured: query times compare like with like. Map builds
        // parallelize over images themselves.
        OpenCVRuntime.threadCount = 1
        let model = try COLMAPImporter.readModel(from: URL(fileURLWithPath: modelPath))
        guard model.images.count >= rigFrames + 1 else {
            throw BenchError("the model has \(model.images.count) images; need \(rigFrames + 1)")
        }
        var buildOptions = MapBuildOptions()
        buildOptions.neighborsPerFrame = neighbors
        buildOptions.featureConfig = featureConfig
        buildOptions.symmetricRatio = symmetricRatio
        buildOptions.alignObservations = alignObservations
        buildOptions.pointPatches = pointPatches
        buildOptions.trackConflicts = trackConflicts
        if let pointSigmaLimit { buildOptions.maxRelativePointSigma = pointSigmaLimit }
        let tty = isatty(STDERR_FILENO) != 0
        let results = try LeaveOneOutEvaluation.evaluate(
            model: model, imagesFolder: URL(fileURLWithPath: imagesPath), every: every, scale: scale,
            buildOptions: buildOptions, localizerOptions: localizerOptions, rigFrames: rigFrames
        ) { done, total, r in
            if verbose {
                print(
                    String(
                        format: "  %@: matches %d inliers %d confidence %.2f (margin %.1f, σ %.1f mm %.3f°) "
                            + "error %.1f mm %.3f° residual %.2f px (at truth %.2f) %@", r.name, r.matches,
                        r.inliers, r.confidence, r.inlierMargin ?? .nan, (r.positionSigma ?? .nan) * 1000,
                        r.rotationSigmaDegrees ?? .nan, (r.positionError ?? .nan) * 1000, r.rotationError ?? .nan,
                        r.residualAtAnswer ?? .nan, r.residualAtTruth ?? .nan, r.failure ?? ""))
            } else if tty {
                FileHandle.standardError.write(Data("\r  leave-one-out: \(done)/\(total)".utf8))
                if done == total { FileHandle.standardError.write(Data("\n".utf8)) }
            }
        }
        let summary = EvaluationSummary(results)
        print("leave-one-out eval of \(results.count) of \(model.images.count) images of \(modelPath):")
        for line in summary.lines { print("  \(line)") }
        let singles = results.compactMap(\.singleOnSameMap)
        if rigFrames > 1, !singles.isEmpty {
            func median(_ v: [Double]) -> Double { EvaluationSummary.median(v) ?? .nan }
            print(
                String(
                    format: "  the held-out image alone on the same maps: median %.1f mm, %.3f° (%d of %d answered)",
                    median(singles.map(\.positionMeters)) * 1000, median(singles.map(\.rotationDegrees)),
                    singles.count, results.count))
        }
        if let jsonPath {
            var object = summary.jsonObject
            object["model"] = modelPath
            object["images_in_model"] = model.images.count
            object["every"] = every
            object["mode"] = localizerOptions.mode.rawValue
            object["rig_frames"] = rigFrames
            object["queries"] = results.map { r -> [String: Any] in
                [
                    "name": r.name, "answered": r.isAnswered,
                    "position_m": r.positionError.map { $0 as Any } ?? NSNull(),
                    "rotation_deg": r.rotationError.map { $0 as Any } ?? NSNull(), "confidence": r.confidence,
                    "inliers": r.inliers, "map_points": r.mapPoints, "query_s": r.totalSeconds,
                    "margin": r.inlierMargin.map { $0 as Any } ?? NSNull(),
                    "sigma_position_m": r.positionSigma.flatMap { $0.isFinite ? $0 as Any : nil } ?? NSNull(),
                    "sigma_rotation_deg": r.rotationSigmaDegrees.flatMap { $0.isFinite ? $0 as Any : nil } ?? NSNull(),
                    "failure": r.failure.map { $0 as Any } ?? NSNull(),
                    "single_same_map_position_m": r.singleOnSameMap.map { $0.positionMeters as Any } ?? NSNull(),
                    "single_same_map_rotation_deg": r.singleOnSameMap.map { $0.rotationDegrees as Any } ?? NSNull(),
                    "support": r.funnel?.support ?? 0, "competitor_inliers": r.funnel?.competitorInliers ?? 0,
                    "support_visible": r.funnel?.supportVisible ?? 0,
                    "competitor_visible": r.funnel?.competitorVisible ?? 0,
                ]
            }
            try JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            ).write(
                to: URL(fileURLWithPath: jsonPath))
        }
        return 0
    }
}
