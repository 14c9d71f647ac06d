import MultiSetCommandLine
import VPSLocalizer

/// The localizer's tuning and ablation flags, shared by `multiset eval` (captures and COLMAP) and
/// `multiset localize`: `--mode`, `--threshold`, `--ratio`, `--min-inliers`, `--guided-below`,
/// `--rig-drift`, `--seed`, `--no-guided`, `--no-tighten`, `--no-scale-weights`, `--no-point-weights`,
/// `--no-refine`.
enum LocalizerFlags {
    /// The options of this command that take no value.
    static let switches: Set<String> = [
        "no-guided", "no-point-weights", "no-scale-weights", "no-tighten", "no-refine",
    ]

    static let usage = """
          --mode vps1|vps2   search depth (default vps1)
          --threshold PX     RANSAC inlier threshold, pixels (default 6)
          --ratio R          Lowe's ratio for query-to-map matches (default: the mode's)
          --min-inliers N    the inlier floor (default 30)
          --guided-below N   verify by projection every pose with fewer descriptor inliers (default 100)
          --observation-keyframes N   the N best-retrieved keyframes match by their observations'
                             own descriptors, not the points' representatives
          --max-refined N    align at most N inlier keypoints to their points' patches (default: 200 in vps1,
                             all in vps2)
          --rig-drift none|vio   how far multi-frame tracking poses may be off (default vio: a phone's
                             visual-inertial tracking; none: exact relative poses)
          --seed N           seed of the pose search and the competitor search (default 24301); other
                             seeds show how much each answer owes to the draw
          --no-guided, --no-tighten, --no-scale-weights, --no-point-weights, --no-refine   ablations: no
                             verification by projection, no tight refit, unweighted keypoints, map points'
                             uncertainty ignored, detected keypoints (not aligned to the points' patches)
        """

    /// Reads the flags present in `args` into `options`.
    static func apply(_ args: inout Arguments, to options: inout LocalizerOptions) throws {
        if let m = args.string("mode") {
            guard let mode = SearchMode(rawValue: m.replacingOccurrences(of: "vps", with: "vps-")) else {
                throw UsageError("--mode takes vps1 or vps2")
            }
            options.mode = mode
        }
        if let t = args.string("threshold") {
            guard let v = Double(t), v > 0, v.isFinite else { throw UsageError("--threshold takes pixels > 0") }
            options.pose.maxReprojectionError = v
        }
        if let t = args.string("ratio") {
            guard let v = Float(t), v > 0, v <= 1 else { throw UsageError("--ratio takes a number in (0, 1]") }
            options.ratio = v
        }
        if let t = args.string("min-inliers") {
            guard let v = Int(t), v >= 6 else { throw UsageError("--min-inliers takes an integer ≥ 6") }
            options.minInliers = v
        }
        if let t = args.string("guided-below") {
            guard let v = Int(t), v >= 0 else { throw UsageError("--guided-below takes an integer ≥ 0") }
            options.guidedBelow = v
        }
        if let t = args.string("observation-keyframes") {
            guard let v = Int(t), v >= 0 else { throw UsageError("--observation-keyframes takes an integer ≥ 0") }
            options.observationKeyframes = v
        }
        if let t = args.string("max-refined") {
            guard let v = Int(t), v >= 0 else { throw UsageError("--max-refined takes an integer ≥ 0") }
            options.maxRefinedKeypoints = v
        }
        if let d = args.string("rig-drift") {
            switch d {
            case "none": options.rigDrift = .none
            case "vio": options.rigDrift = .visualInertial
            default: throw UsageError("--rig-drift takes none or vio")
            }
        }
        if let t = args.string("seed") {
            guard let v = UInt64(t) else { throw UsageError("--seed takes an integer ≥ 0") }
            options.pose.ransac.seed = v
        }
        if args.flag("no-guided") { options.guidedMatching = false }
        if args.flag("no-tighten") { options.tighten = false }
        if args.flag("no-refine") { options.refineKeypoints = false }
        if args.flag("no-scale-weights") { options.weightByScale = false }
        if args.flag("no-point-weights") { options.weightByPointUncertainty = false }
    }
}
