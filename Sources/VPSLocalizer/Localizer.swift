import Dispatch
import Foundation
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
    /// Iteration cap of the competitor search behind `inlierMargin`.
    public var competitorIterations = 5_000
    /// Fewer inliers than this is a failure. An interim safety floor until confidence is calibrated
    /// (on the synthetic room, answers below 50 inliers included a pose 1.3 m / 14° off).
    public var minInliers = 50
    /// Weight each keypoint by its scale in the final refinement (σ = size / the finest size: the
    /// pyramid scale of its level).
    public var weightByScale = true
    /// Keep the 2D–3D correspondences and inlier flags in the outcome (diagnostics, benchmarks).
    public var keepCorrespondences = false

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
    /// Inliers of the best pose over those of the best distinct competitor (≥ 2 m or ≥ 20° away),
    /// floored at 10 and capped at 99 (SPEC §18.3); near 1 when two places explain the image equally.
    public var inlierMargin: Double?
    /// Confidence in [0, 1]: inlier evidence discounted by ambiguity (see `Localizer.confidence`).
    public var confidence = 0.0
    /// Seconds per stage (`extract`, `match`, `pose`, `margin`).
    public var seconds: [String: Double] = [:]
    /// RANSAC statistics.
    public var ransac = RansacStats()
    /// The ratio-test correspondences (query pixel, map point) and the final inlier flags, when
    /// `LocalizerOptions.keepCorrespondences` is set.
    public var correspondences: (pixels: [Vec2], points: [Vec3], inliers: [Bool])?
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
        let neighbors = map.nearest(queries)
        let matches = neighbors.matches(ratio: options.ratio)
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
        let finest = features.keypoints.lazy.map(\.size).min() ?? 1
        let sigmas = matches.map { max(1, Double(features.keypoints[Int($0.query)].size / max(finest, 1e-3))) }
        let result = estimateAbsolutePose(
            pixels: pixels, points: points, camera: camera, gravityInCamera: gravityInCamera,
            pixelSigmas: options.weightByScale ? sigmas : nil, options: options.pose)
        out.ransac = result.ransac
        out.inliers = result.inlierCount
        if options.keepCorrespondences { out.correspondences = (pixels, points, result.inliers) }
        lap("pose")
        guard let pose = result.camFromWorld, result.inlierCount >= options.minInliers else {
            out.failure = .tooFewInliers
            return out
        }
        out.camFromMap = pose
        // The best distinct competitor among the correspondences the winner did not explain.
        // Competitors are searched among both nearest map points of every query feature, without the
        // ratio test: in a place with a twin (a repeated room), the twin's points are exactly the
        // second neighbours the ratio test discards.
        // Twin candidates: features the winner explains through one of their two nearest map points,
        // paired with the other one. A repeated place explains the same features through the twin
        // points, so its hypothesis dominates this small set and is found in few iterations.
        var twinPixels: [Vec2] = [], twinPoints: [Vec3] = []
        var otherPixels: [Vec2] = [], otherPoints: [Vec3] = []
        let t2 = pow(options.pose.maxReprojectionError, 2)
        for q in 0..<neighbors.queryCount {
            let kp = features.keypoints[q]
            let px = Vec2(Double(kp.x), Double(kp.y))
            let candidates = neighbors[q].filter { $0.distance <= 80 }
            let explained = candidates.map { m -> Bool in
                guard let proj = camera.project(pose.transform(map.data.positions[Int(m.train)])) else { return false }
                return (proj - px).squaredNorm < t2
            }
            for (m, isExplained) in zip(candidates, explained) where !isExplained {
                let x = map.data.positions[Int(m.train)]
                if explained.contains(true) {
                    twinPixels.append(px)
                    twinPoints.append(x)
                } else {
                    otherPixels.append(px)
                    otherPoints.append(x)
                }
            }
        }
        let competitor = max(
            bestCompetitor(
                of: pose, pixels: twinPixels, points: twinPoints,
                inliers: [Bool](repeating: false, count: twinPixels.count),
                camera: camera, gravity: gravityInCamera, options: options),
            bestCompetitor(
                of: pose, pixels: twinPixels + otherPixels, points: twinPoints + otherPoints,
                inliers: [Bool](repeating: false, count: twinPixels.count + otherPixels.count), camera: camera,
                gravity: gravityInCamera,
                options: options))
        out.inlierMargin = min(99, Double(result.inlierCount) / Double(max(10, competitor)))
        out.confidence = confidence(inliers: result.inlierCount, margin: out.inlierMargin!)
        lap("margin")
        return out
    }

    /// Confidence from inlier evidence and ambiguity: `(1 − e^(−inliers/60)) · clamp((margin − 1.5) / 2.5, 0, 1)`.
    ///
    /// Interim, uncalibrated shape: an unambiguous answer (margin ≥ 4) with 150 inliers scores about
    /// 0.9; two places that explain the image about equally (margin below 2.25) stay below 0.3
    /// whatever the inliers.
    public static func confidence(inliers: Int, margin: Double) -> Double {
        let evidence: Double = 1 - exp(-Double(inliers) / 60)
        let distinctness: Double = min(1, max(0, (margin - 1.5) / 2.5))
        return evidence * distinctness
    }

    /// Inliers of the strongest pose at least 2 m or 20° from `best`, found by LO-RANSAC on the
    /// correspondences `best` does not explain (twice, dropping a near-duplicate of `best`).
    static func bestCompetitor(
        of best: CameraPose, pixels: [Vec2], points: [Vec3], inliers: [Bool], camera: Camera, gravity: Vec3?,
        options: LocalizerOptions
    ) -> Int {
        var remaining = (0..<pixels.count).filter { !inliers[$0] }
        for round in 0..<2 {
            guard remaining.count >= 10 else { return 0 }
            // An estimate of the competitor's support is enough: a bounded search (uncapped, a query with no
            // real competitor costs up to 100k iterations, ~75 ms) and light refinement. A twin place has a
            // support comparable to the winner's and is found early; weak competitors may be missed.
            var poseOptions = options.pose
            poseOptions.minInliers = 6
            poseOptions.ransac.maxIterations = options.competitorIterations
            poseOptions.refinementIterations = 5
            poseOptions.ransac.seed = options.pose.ransac.seed &+ UInt64(round + 1)
            let result = estimateAbsolutePose(
                pixels: remaining.map { pixels[$0] }, points: remaining.map { points[$0] }, camera: camera,
                gravityInCamera: gravity,
                options: poseOptions)
            guard let pose = result.camFromWorld else { return 0 }
            let e = pose.error(to: best)
            if e.positionMeters >= 2 || e.rotationDegrees >= 20 { return result.inlierCount }
            remaining = zip(remaining, result.inliers).filter { !$0.1 }.map(\.0)
        }
        return 0
    }
}
