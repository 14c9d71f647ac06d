import Foundation
import VPSLocalizer
import VPSMap

/// `multiset eval --colmap DIR --leave-one-out`: each evaluated image of a COLMAP model localized against
/// a map built from the model without it (`LeaveOneOutEvaluation`).
enum EvalCOLMAPCommand {
    static let usage = """
        usage: multiset eval --colmap MODEL_DIR --images DIR --leave-one-out [--every N] [--scale S]
                             [--neighbors K] [--verbose] [--json FILE]

        Leave-one-out evaluation of a COLMAP model (text or binary): for every N-th image (default 1), builds a
        map from the model without it — as `map import-colmap --exclude IMAGE` would — localizes the image with
        its COLMAP camera and compares with the model's pose. Prints recall at (5 cm, 1°), (25 cm, 2°),
        (50 cm, 5°), (5 m, 10°), median errors, the share of wrong answers (> 0.5 m or > 5°) with confidence
        ≥ 0.3, and query latency p50/p90 per stage; `--json FILE` writes the same figures.

        Slow by design: the map is rebuilt (features, pair matching, triangulation) for every evaluated image,
        so one evaluated image costs about one `map import-colmap` of the model. Use --every to subsample.
        --scale turns model units into metres (errors are in metres); --neighbors sets the candidate pairs per
        image of the map build (default 10).
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
        // `--json FILE`: the parser treats --json as a switch, so FILE arrives as the next positional word.
        let jsonPath = args.flag("json") ? args.positionals.dropFirst().first : nil
        if args.flag("json") && jsonPath == nil { throw UsageError("--json needs a file name") }
        try args.rejectUnknown()
        guard every >= 1 else { throw UsageError("--every takes a positive integer") }
        guard neighbors >= 1 else { throw UsageError("--neighbors takes a positive integer") }
        guard scale > 0, scale.isFinite else { throw UsageError("--scale takes a positive number") }

        let model = try COLMAPImporter.readModel(from: URL(fileURLWithPath: modelPath))
        guard model.images.count >= 2 else { throw BenchError("the model has \(model.images.count) images; need 2") }
        var buildOptions = MapBuildOptions()
        buildOptions.neighborsPerFrame = neighbors
        let tty = isatty(STDERR_FILENO) != 0
        let results = try LeaveOneOutEvaluation.evaluate(
            model: model, imagesFolder: URL(fileURLWithPath: imagesPath), every: every, scale: scale,
            buildOptions: buildOptions
        ) { done, total, r in
            if verbose {
                print(
                    String(
                        format: "  %@: matches %d inliers %d confidence %.2f error %.1f mm %.3f° %@", r.name, r.matches,
                        r.inliers, r.confidence, (r.positionError ?? .nan) * 1000, r.rotationError ?? .nan,
                        r.failure ?? ""))
            } else if tty {
                FileHandle.standardError.write(Data("\r  leave-one-out: \(done)/\(total)".utf8))
                if done == total { FileHandle.standardError.write(Data("\n".utf8)) }
            }
        }
        let summary = EvaluationSummary(results)
        print("leave-one-out eval of \(results.count) of \(model.images.count) images of \(modelPath):")
        for line in summary.lines { print("  \(line)") }
        if let jsonPath {
            var object = summary.jsonObject
            object["model"] = modelPath
            object["images_in_model"] = model.images.count
            object["every"] = every
            try JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            ).write(
                to: URL(fileURLWithPath: jsonPath))
        }
        return 0
    }
}
