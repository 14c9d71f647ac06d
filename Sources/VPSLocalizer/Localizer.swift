import Dispatch
import VPSFeatures
import VPSGeometry
import VPSImaging
import VPSMap

/// Options of `Localizer.localize`.
public struct LocalizerOptions: Sendable {
    /// Lowe's ratio for query-to-map matching.
    public var ratio: Float = 0.8
    /// Pose estimation (thresholds, RANSAC, refinement).
    public var pose = AbsolutePoseOptions()
    /// Fewer inliers than this is a failure. An interim safety floor until confidence is calibrated
    /// (on the synthetic room, answers below 50 inliers included a pose 1.3 m / 14° off).
    public var minInliers = 50

    /// Defaults.
    public init() {}
}

/// Why a query found no pose.
public enum LocalizationFailure: String, Error, Sendable {
    /// Too few query features matched the map.
    case noRetrievalMatch = "NO_RETRIEVAL_MATCH"
    /// The best pose had too few inliers.
    case tooFewInliers = "TOO_FEW_INLIERS"
}

/// The result of one query, with diagnostics.
public struct LocalizationOutcome: Sendable {
    /// `camFromMap` (computer-vision camera, right-handed map frame), when found.
    public var camFromMap: CameraPose?
    /// Why not, when not.
    public var failure: LocalizationFailure?
    /// Query features, ratio-test matches and pose inliers.
    public var features = 0
    public var matches = 0
    public var inliers = 0
    /// Seconds per stage (`extract`, `match`, `pose`).
    public var seconds: [String: Double] = [:]
    /// RANSAC statistics.
    public var ransac = RansacStats()
}

/// Single-frame localization against a prepared map: extract → 2D–3D matching (ratio test over
/// the map's point descriptors) → LO-RANSAC (P3P, or up2p with gravity) → robust refinement.
///
/// Failure is explicit (a reason and the diagnostics), never a fallback pose.
public enum Localizer {
    /// Localizes one gray image.
    ///
    /// - Parameters:
    ///   - camera: the query's intrinsics.
    ///   - gravityInCamera: gravity (down) in the computer-vision camera frame, if the device knows it.
    public static func localize(
        image: GrayImage, camera: Camera, gravityInCamera: Vec3? = nil, map: LocalizationMap,
        options: LocalizerOptions = LocalizerOptions()
    ) throws(FeaturesError) -> LocalizationOutcome {
        var out = LocalizationOutcome()
        var t = DispatchTime.now().uptimeNanoseconds
        func lap(_ stage: String) {
            let now = DispatchTime.now().uptimeNanoseconds
            out.seconds[stage] = Double(now - t) / 1e9
            t = now
        }
        let features = try map.featureConfig.makeExtractor().extract(from: image)
        out.features = features.count
        lap("extract")
        guard let queries = features.descriptors.binary, !queries.isEmpty else {
            out.failure = .noRetrievalMatch
            return out
        }
        let matches = map.nearest(queries).matches(ratio: options.ratio)
        out.matches = matches.count
        lap("match")
        guard matches.count >= max(6, options.minInliers) else {
            out.failure = .noRetrievalMatch
            return out
        }
        let pixels = matches.map {
            Vec2(Double(features.keypoints[Int($0.query)].x), Double(features.keypoints[Int($0.query)].y))
        }
        let points = matches.map { map.data.positions[Int($0.train)] }
        let result = estimateAbsolutePose(
            pixels: pixels, points: points, camera: camera, gravityInCamera: gravityInCamera, options: options.pose)
        out.ransac = result.ransac
        out.inliers = result.inlierCount
        lap("pose")
        guard let pose = result.camFromWorld, result.inlierCount >= options.minInliers else {
            out.failure = .tooFewInliers
            return out
        }
        out.camFromMap = pose
        return out
    }
}
