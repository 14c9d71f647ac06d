import Dispatch
import Foundation
import VPSFeatures
import VPSGeometry
import VPSImaging
import VPSMap

/// Options of `Localizer.localize`.
public struct LocalizerOptions: Sendable {
    /// Search depth (`queryMode`): features, retrieved keyframes and ratio test.
    public var mode = SearchMode.vps1
    /// Position and height priors (map frame).
    public var hints = LocalizationHints()
    /// Lowe's ratio for query-to-map matching; nil: the mode's.
    public var ratio: Float?
    /// Pose estimation (thresholds, RANSAC, refinement).
    public var pose = AbsolutePoseOptions()
    /// Iteration cap of the competitor search behind `inlierMargin`: it only has to find a rival's
    /// pose, whose support verification by projection then measures (5,000 before that; 2,500 gives
    /// the same calibration and saves ~2 ms).
    public var competitorIterations = 2_500
    /// Fewer inliers than this is a failure (COLMAP's floor for absolute poses). Above it the
    /// confidence judges the answer; its evidence term is 0.39 at 30 inliers. (Before weak poses were
    /// verified by projection, answers below 50 inliers included a pose 1.3 m / 14° off.)
    public var minInliers = 30
    /// Weight each keypoint by its scale in the final refinement (σ = size / the finest size: the
    /// pyramid scale of its level).
    public var weightByScale = true
    /// Refit the pose on the correspondences within 3 px × keypoint scale (see `PoseTightening`).
    public var tighten = true
    /// Verify by projection (`ProjectionMatching`): a weak pose is re-estimated from the
    /// correspondences it predicts, and a competitor's support is measured the same way. Off: the
    /// descriptor matches alone (ablations).
    public var guidedMatching = true
    /// Poses with fewer descriptor-match inliers than this are verified by projection (every pose in
    /// VPS-2, `SearchMode.verifiesEveryPose`).
    public var guidedBelow = 100
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
    /// The pose lies outside the hinted region.
    case outsideHintRegion = "OUTSIDE_HINT_REGION"
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
    /// Correspondences found by projecting the map with a weak first pose (0: not tried).
    public var guidedMatches = 0
    /// Inliers of the best pose over those of the best distinct competitor (≥ 2 m or ≥ 20° away),
    /// floored at 10 and capped at 99 (SPEC §18.3); near 1 when two places explain the image equally.
    public var inlierMargin: Double?
    /// Inliers of the best distinct competitor found (0: none).
    public var competitorInliers = 0
    /// Confidence in [0, 1]: inlier evidence discounted by ambiguity (see `Localizer.confidence`).
    public var confidence = 0.0
    /// Seconds per stage (`extract`, `retrieve`, `match`, `pose`, `guided` when tried, `margin`).
    public var seconds: [String: Double] = [:]
    /// RANSAC statistics.
    public var ransac = RansacStats()
    /// First-order standard deviation of the camera centre (metres) and rotation (degrees) for
    /// 1 px keypoint noise: how well the inliers' geometry pins the pose down.
    public var positionSigma = Double.infinity
    public var rotationSigmaDegrees = Double.infinity
    /// Correspondences within the final tight (3 px × keypoint scale) threshold.
    public var tightInliers = 0
    /// Retrieved keyframes (map keyframe index) and their votes, best first.
    public var retrieved: [(keyframe: Int, votes: Int)] = []
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
        let features = try options.mode.extractor(for: map.featureConfig).extract(from: image)
        out.features = features.count
        lap("extract")
        guard !options.pose.ransac.deadline.hasPassed else { return out }
        guard let queries = features.descriptors.binary, !queries.isEmpty else {
            out.failure = .noRetrievalMatch
            return out
        }
        let search = CandidateSearch(
            queries: [queries], responses: [features.keypoints.map(\.response)], map: map, mode: options.mode,
            hints: options.hints)
        let neighbors = search.neighbors(queries)
        out.seconds["retrieve"] = search.retrievalSeconds
        out.retrieved = search.retrieval.keyframes.map { ($0.index, $0.votes) }
        let matches = neighbors.matches(ratio: options.ratio ?? options.mode.ratio)
        out.matches = matches.count
        lap("match")
        out.seconds["match"]! -= search.retrievalSeconds
        guard !options.pose.ransac.deadline.hasPassed else { return out }
        guard matches.count >= (options.guidedMatching ? 8 : max(6, options.minInliers)) else {
            out.failure = .noRetrievalMatch
            return out
        }
        var pixels = matches.map {
            Vec2(Double(features.keypoints[Int($0.query)].x), Double(features.keypoints[Int($0.query)].y))
        }
        var points = matches.map { map.data.positions[Int($0.train)] }
        let projection = ProjectionMatching(
            keypoints: features.keypoints, descriptors: queries, map: map, camera: camera)
        var sigmas = matches.map { projection.scales[Int($0.query)] }
        var result = estimateAbsolutePose(
            pixels: pixels, points: points, camera: camera, gravityInCamera: gravityInCamera,
            pixelSigmas: options.weightByScale ? sigmas : nil, options: options.pose)
        out.ransac = result.ransac
        out.inliers = result.inlierCount
        lap("pose")
        guard !options.pose.ransac.deadline.hasPassed else { return out }
        if options.guidedMatching, options.mode.verifiesEveryPose || result.inlierCount < options.guidedBelow,
            result.inlierCount >= 8,
            let hypothesis = result.camFromWorld
        {
            // Few descriptor matches agree, but a pose from a dozen may still be right: the
            // correspondences it predicts confirm it (or it stays a failure).
            if let verified = projection.verify(
                pose: hypothesis, support: result.inlierCount, gravity: gravityInCamera, options: options.pose,
                weightByScale: options.weightByScale)
            {
                pixels = verified.pixels
                points = verified.points
                sigmas = verified.sigmas
                result = verified.result
                out.guidedMatches = verified.pixels.count
            }
            out.inliers = result.inlierCount
            lap("guided")
        }
        if options.keepCorrespondences { out.correspondences = (pixels, points, result.inliers) }
        guard let ransacPose = result.camFromWorld, result.inlierCount >= options.minInliers else {
            out.failure = .tooFewInliers
            return out
        }
        let tight = PoseTightening(
            pose: ransacPose, pixels: pixels, points: points,
            sigmas: options.weightByScale ? sigmas : sigmas.map { _ in 1 }, camera: camera)
        let pose = options.tighten ? tight.pose : ransacPose
        out.positionSigma = tight.positionSigma
        out.rotationSigmaDegrees = tight.rotationSigmaDegrees
        out.tightInliers = tight.inlierCount
        guard options.hints.contains(pose.center) else {
            out.failure = .outsideHintRegion
            return out
        }
        guard !options.pose.ransac.deadline.hasPassed else { return out }
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
        // Twins outside the retrieved keyframes: the features the winner explains look up their
        // approximate nearest points over the whole map (the light retrieval probe); a neighbour far
        // from the point the winner used is a candidate twin wherever it is in the map.
        if search.candidates != nil {
            var explainedFeatures: [Int] = []
            var usedPoints: [Vec3] = []
            for m in matches {
                let x = map.data.positions[Int(m.train)]
                let kp = features.keypoints[Int(m.query)]
                guard let proj = camera.project(pose.transform(x)),
                    (proj - Vec2(Double(kp.x), Double(kp.y))).squaredNorm < t2
                else { continue }
                explainedFeatures.append(Int(m.query))
                usedPoints.append(x)
            }
            // The strongest 200 suffice to find a twin's pose; its support is measured by projection.
            if explainedFeatures.count > 200 {
                let strongest = explainedFeatures.indices.sorted {
                    features.keypoints[explainedFeatures[$0]].response
                        > features.keypoints[explainedFeatures[$1]].response
                }.prefix(200)
                explainedFeatures = strongest.map { explainedFeatures[$0] }
                usedPoints = strongest.map { usedPoints[$0] }
            }
            var words: [UInt64] = []
            words.reserveCapacity(4 * explainedFeatures.count)
            for q in explainedFeatures { words += queries.words[(4 * q)..<(4 * q + 4)] }
            let global = map.nearestForVotes(BinaryDescriptors(words: words))
            for (j, q) in explainedFeatures.enumerated() {
                let kp = features.keypoints[q]
                for m in global[j] where m.distance <= 80 {
                    let x = map.data.positions[Int(m.train)]
                    if x.distance(to: usedPoints[j]) > 1 {
                        twinPixels.append(Vec2(Double(kp.x), Double(kp.y)))
                        twinPoints.append(x)
                    }
                }
            }
        }
        let rival = [
            bestCompetitor(
                of: pose, pixels: twinPixels, points: twinPoints,
                inliers: [Bool](repeating: false, count: twinPixels.count),
                camera: camera, gravity: gravityInCamera, options: options),
            bestCompetitor(
                of: pose, pixels: twinPixels + otherPixels, points: twinPoints + otherPoints,
                inliers: [Bool](repeating: false, count: twinPixels.count + otherPixels.count), camera: camera,
                gravity: gravityInCamera,
                options: options),
        ].max { $0.inliers < $1.inliers }!
        var support = result.inlierCount, competitor = rival.inliers
        if options.guidedMatching, let rivalPose = rival.pose, rival.inliers >= 10 {
            // Compare like with like: a twin place found from a handful of second neighbours has far
            // more support than they show; both poses are measured by the correspondences they predict.
            // A rival the projection pulls onto the winner was a fragment of it, not a second place.
            if let verified = projection.verify(
                pose: rivalPose, support: rival.inliers, gravity: gravityInCamera, options: options.pose,
                weightByScale: options.weightByScale), let p = verified.result.camFromWorld,
                p.error(to: pose).positionMeters >= 2 || p.error(to: pose).rotationDegrees >= 20
            {
                competitor = verified.support
                if out.guidedMatches == 0 {
                    support =
                        projection.verify(
                            pose: pose, support: 0, gravity: gravityInCamera, options: options.pose,
                            weightByScale: options.weightByScale)?.support ?? support
                }
            }
        }
        out.inlierMargin = min(99, Double(support) / Double(max(10, competitor)))
        out.competitorInliers = competitor
        out.confidence = confidence(
            inliers: result.inlierCount, margin: out.inlierMargin!,
            positionSigma: tight.positionSigma, rotationSigmaDegrees: tight.rotationSigmaDegrees)
        lap("margin")
        return out
    }

    /// The confidence from which a pose is answered (SPEC §18.2); below it a pose is withheld as
    /// `LOW_CONFIDENCE` (server, CLI).
    public static let answerConfidence = 0.2

    /// Confidence in [0, 1]: the product of inlier evidence, distinctness and conditioning,
    ///
    ///     (1 − e^(−n/60)) · clamp((margin − 2) / 3, 0, 1) · 1 / (1 + (σp / 5 cm)⁴ + (σr / 0.8°)⁴)
    ///
    /// - evidence: n inliers; 30 give 0.39, 50 give 0.57, 150 give 0.92;
    /// - distinctness: two places that explain the image about equally (`inlierMargin` below 2.9)
    ///   stay below 0.3 whatever the inliers (SPEC §18.3). The margin compares like with like: a
    ///   competitor with ≥ 10 inliers and the winner are both measured by the correspondences they
    ///   predict (`ProjectionMatching`), so a twin place shows its full support (margins 0.2–1.8 in
    ///   the twin-room venues). Before that, competitors found from a handful of second neighbours
    ///   looked weak (margins up to 7.5 for a twin) and an extra penalty on competitors of more
    ///   than 20 inliers was needed; it is no longer (it only cost single-room recall);
    /// - conditioning: σp, σr are the first-order position (metres) and rotation (degrees)
    ///   uncertainty for 1 px keypoint noise (`PoseTightening`). Inliers crowded on one distant
    ///   plane pin the pose down poorly; on the simulated venues every wrong answer with many
    ///   inliers had σr > 1.5° while correct ones stayed below 0.5°.
    ///
    /// Calibrated on simulated venues (docs/EVALUATION.md): among answers with confidence ≥ 0.3 at
    /// most 1 % may be wrong (> 0.5 m or > 5°), at ≥ 0.2 at most 3 % (SPEC §18.2).
    public static func confidence(
        inliers: Int, margin: Double, positionSigma: Double = 0, rotationSigmaDegrees: Double = 0
    ) -> Double {
        let evidence: Double = 1 - exp(-Double(inliers) / 60)
        let distinctness: Double = min(1, max(0, (margin - 2) / 3))
        guard positionSigma.isFinite, rotationSigmaDegrees.isFinite else { return 0 }
        let conditioning = 1 / (1 + pow(positionSigma / 0.15, 4) + pow(rotationSigmaDegrees / 0.8, 4))
        return evidence * distinctness * conditioning
    }

    /// Inliers of the strongest pose at least 2 m or 20° from `best`, found by LO-RANSAC on the
    /// correspondences `best` does not explain (twice, dropping a near-duplicate of `best`).
    static func bestCompetitor(
        of best: CameraPose, pixels: [Vec2], points: [Vec3], inliers: [Bool], camera: Camera, gravity: Vec3?,
        options: LocalizerOptions
    ) -> (inliers: Int, pose: CameraPose?) {
        var remaining = (0..<pixels.count).filter { !inliers[$0] }
        for round in 0..<2 {
            guard remaining.count >= 10 else { return (0, nil) }
            // A rival's pose is enough (its support is then measured by projection): a bounded search
            // (uncapped, a query with no real competitor costs up to 100k iterations, ~75 ms) and light
            // refinement. A twin place is found early; weak competitors may be missed.
            var poseOptions = options.pose
            poseOptions.minInliers = 6
            poseOptions.ransac.maxIterations = options.competitorIterations
            poseOptions.refinementIterations = 5
            poseOptions.ransac.seed = options.pose.ransac.seed &+ UInt64(round + 1)
            let result = estimateAbsolutePose(
                pixels: remaining.map { pixels[$0] }, points: remaining.map { points[$0] }, camera: camera,
                gravityInCamera: gravity,
                options: poseOptions)
            guard let pose = result.camFromWorld else { return (0, nil) }
            let e = pose.error(to: best)
            if e.positionMeters >= 2 || e.rotationDegrees >= 20 { return (result.inlierCount, pose) }
            remaining = zip(remaining, result.inliers).filter { !$0.1 }.map(\.0)
        }
        return (0, nil)
    }
}
