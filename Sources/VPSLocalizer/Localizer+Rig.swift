import Dispatch
import Foundation
import VPSFeatures
import VPSGeometry
import VPSImaging

/// The result of a multi-frame query, with diagnostics.
public struct RigLocalizationOutcome: Sendable {
    /// `rigFromMap` (the rig frame is the frames' tracking world), when found.
    public var rigFromMap: CameraPose?
    /// Why not, when not.
    public var failure: LocalizationFailure?
    /// Query features over all frames, ratio-test matches and pose inliers.
    public var features = 0
    public var matches = 0
    public var inliers = 0
    /// As `LocalizationOutcome.inlierMargin`, over all frames (SPEC §18.3).
    public var inlierMargin: Double?
    /// As `LocalizationOutcome.confidence`.
    public var confidence = 0.0
    /// Seconds per stage (`extract`, `match`, `pose`, `margin`).
    public var seconds: [String: Double] = [:]
}

extension Localizer {
    /// Localizes several frames with known relative poses (an AR session's tracking poses) jointly,
    /// as one generalized camera: every frame's matches enter one gP3P LO-RANSAC and one rig
    /// refinement, so the frames vote for a single map-to-tracking transform.
    ///
    /// - Parameters:
    ///   - images: the frames' gray images.
    ///   - cameras: their intrinsics.
    ///   - camFromRig: each frame's computer-vision camera pose in the rig (tracking) frame.
    ///   - options: as for single frames; hints apply to the first frame's camera.
    /// - Returns: `rigFromMap`; the first frame's camera is `camFromRig[0] · rigFromMap`.
    public static func localize(
        rig images: [GrayImage], cameras: [Camera], camFromRig: [CameraPose], map: LocalizationMap,
        options: LocalizerOptions = LocalizerOptions()
    ) throws(FeaturesError) -> RigLocalizationOutcome {
        var out = RigLocalizationOutcome()
        var t = DispatchTime.now().uptimeNanoseconds
        func lap(_ stage: String) {
            let now = DispatchTime.now().uptimeNanoseconds
            out.seconds[stage, default: 0] += Double(now - t) / 1e9
            t = now
        }
        let extractor = options.mode.extractor(for: map.featureConfig)
        var pixels: [Vec2] = [], points: [Vec3] = [], frameOf: [Int] = [], sigmas: [Double] = []
        // Candidate correspondences for the competitor search: both nearest map points of every feature.
        var candidates: [(pixel: Vec2, point: Vec3, frame: Int, feature: Int)] = []
        var extracted: [FeatureSet] = []
        for (k, image) in images.enumerated() where k < cameras.count && k < camFromRig.count {
            guard !options.pose.ransac.deadline.hasPassed else { return out }

            extracted.append(try extractor.extract(from: image))
        }
        lap("extract")
        guard !options.pose.ransac.deadline.hasPassed else { return out }
        // One retrieval for the whole rig (the frames see neighbouring parts of one place), with
        // room for the wider view of several frames.
        let search = CandidateSearch(
            queries: extracted.map { $0.descriptors.binary ?? BinaryDescriptors() },
            responses: extracted.map { $0.keypoints.map(\.response) }, map: map, mode: options.mode,
            hints: options.hints, keyframes: 2 * options.mode.retrievedKeyframes)
        for (k, features) in extracted.enumerated() {
            guard !options.pose.ransac.deadline.hasPassed else { return out }
            let firstFeature = out.features
            out.features += features.count
            guard let queries = features.descriptors.binary, !queries.isEmpty else { continue }
            let neighbors = search.neighbors(queries)
            let matches = neighbors.matches(ratio: options.ratio ?? options.mode.ratio)
            let scales = ProjectionMatching.pyramidScales(features.keypoints)
            for m in matches {
                let kp = features.keypoints[Int(m.query)]
                sigmas.append(scales[Int(m.query)])
                pixels.append(Vec2(Double(kp.x), Double(kp.y)))
                points.append(map.data.positions[Int(m.train)])
                frameOf.append(k)
            }
            for q in 0..<neighbors.queryCount {
                let kp = features.keypoints[q]
                for m in neighbors[q] where m.distance <= 80 {
                    candidates.append(
                        (Vec2(Double(kp.x), Double(kp.y)), map.data.positions[Int(m.train)], k, firstFeature + q))
                }
            }
        }
        lap("match")
        guard !options.pose.ransac.deadline.hasPassed else { return out }
        out.matches = pixels.count
        guard pixels.count >= max(6, options.minInliers) else {
            out.failure = .noRetrievalMatch
            return out
        }
        let usedCameras = Array(cameras.prefix(images.count))
        let usedPoses = Array(camFromRig.prefix(images.count))
        let result = estimateGeneralizedAbsolutePose(
            RigObservations(cameras: usedCameras, camFromRig: usedPoses, pixels: pixels, cameraIndices: frameOf),
            points: points, options: options.pose)
        out.inliers = result.inlierCount
        lap("pose")
        guard !options.pose.ransac.deadline.hasPassed else { return out }
        guard var rigFromMap = result.camFromWorld, result.inlierCount >= options.minInliers else {
            out.failure = .tooFewInliers
            return out
        }
        // The answer is image1's pose: refit it on image1's own correspondences from the joint
        // solution, so the other frames' tracking drift (about 1 % of the distance walked) does
        // not leak into it. Kept only when image1 alone pins its pose down well and agrees.
        let first = pixels.indices.filter { frameOf[$0] == 0 }
        let firstInliers = first.filter { result.inliers[$0] }
        if options.tighten, firstInliers.count >= 30 {
            // image1's own pose from its share of the rig's inliers (nearly all correct: RANSAC
            // ends in a few iterations), then tightened on all of its correspondences. The rig
            // pose can be a degree off when the frames' tracking disagrees by a few pixels' worth.
            let start = CameraPose(usedPoses[0].rigid * rigFromMap.rigid)
            let alone = estimateAbsolutePose(
                pixels: firstInliers.map { pixels[$0] }, points: firstInliers.map { points[$0] },
                camera: usedCameras[0], pixelSigmas: firstInliers.map { sigmas[$0] }, options: options.pose)
            if let seed = alone.camFromWorld {
                let own = PoseTightening(
                    pose: seed, pixels: first.map { pixels[$0] }, points: first.map { points[$0] },
                    sigmas: first.map { sigmas[$0] }, camera: usedCameras[0])
                let e = own.pose.error(to: start)
                if own.inlierCount >= 30, own.positionSigma < 0.03, own.rotationSigmaDegrees < 0.5,
                    e.positionMeters < 0.5, e.rotationDegrees < 5
                {
                    rigFromMap = CameraPose(usedPoses[0].rigid.inverse * own.pose.rigid)
                }
            }
        }
        let firstCamera = CameraPose(usedPoses[0].rigid * rigFromMap.rigid)
        guard options.hints.contains(firstCamera.center) else {
            out.failure = .outsideHintRegion
            return out
        }
        out.rigFromMap = rigFromMap
        // Competitor search (SPEC §18.3) over candidates the winner does not explain, twins first
        // (features it explains through their other nearest point), as for single frames.
        let t2 = pow(options.pose.maxReprojectionError, 2)
        let explained = candidates.map { c -> Bool in
            let cam = usedPoses[c.frame].transform(rigFromMap.transform(c.point))
            guard let proj = usedCameras[c.frame].project(cam) else { return false }
            return (proj - c.pixel).squaredNorm < t2
        }
        let explainedFeatures = Set(zip(candidates, explained).filter(\.1).map(\.0.feature))
        var twins: [Int] = [], others: [Int] = []
        for (i, c) in candidates.enumerated() where !explained[i] {
            if explainedFeatures.contains(c.feature) { twins.append(i) } else { others.append(i) }
        }
        var competitor = 0
        for subset in [twins, twins + others] {
            competitor = max(
                competitor,
                bestRigCompetitor(
                    of: rigFromMap, candidates: subset.map { candidates[$0] }, cameras: usedCameras,
                    camFromRig: usedPoses, options: options))
        }
        out.inlierMargin = min(99, Double(result.inlierCount) / Double(max(10, competitor)))
        // Four views must agree on one transform, so a twin place does not reach a confident rig
        // answer (calibration: 1 answer ≥ 0.2 in the twin-room venues, correct); competitors are not
        // verified by projection here (repeated floor tiles give distinct partial competitors of ~90
        // inliers per frame next to a correct winner of ~570 per frame).
        out.confidence = confidence(inliers: result.inlierCount, margin: out.inlierMargin!)
        lap("margin")
        return out
    }

    /// Inliers of the strongest rig pose at least 2 m or 20° from `best` among `candidates`.
    static func bestRigCompetitor(
        of best: CameraPose, candidates: [(pixel: Vec2, point: Vec3, frame: Int, feature: Int)], cameras: [Camera],
        camFromRig: [CameraPose], options: LocalizerOptions
    ) -> Int {
        var remaining = Array(candidates.indices)
        for round in 0..<2 {
            guard remaining.count >= 10 else { return 0 }
            var poseOptions = options.pose
            poseOptions.minInliers = 6
            // gP3P costs ~6× a P3P solve: a smaller budget (a twin place dominates its candidates).
            poseOptions.ransac.maxIterations = options.competitorIterations / 3
            poseOptions.refinementIterations = 5
            poseOptions.ransac.seed = options.pose.ransac.seed &+ UInt64(round + 1)
            let result = estimateGeneralizedAbsolutePose(
                RigObservations(
                    cameras: cameras, camFromRig: camFromRig, pixels: remaining.map { candidates[$0].pixel },
                    cameraIndices: remaining.map { candidates[$0].frame }),
                points: remaining.map { candidates[$0].point }, options: poseOptions)
            guard let pose = result.camFromWorld else { return 0 }
            // Distinct as SPEC §18.3 means it: image1's camera ≥ 2 m or 20° away (the rig frame's origin
            // is the tracking origin, possibly metres from the cameras, which would inflate distances).
            let e = CameraPose(camFromRig[0].rigid * pose.rigid).error(to: CameraPose(camFromRig[0].rigid * best.rigid))
            if e.positionMeters >= 2 || e.rotationDegrees >= 20 { return result.inlierCount }
            remaining = zip(remaining, result.inliers).filter { !$0.1 }.map(\.0)
        }
        return 0
    }
}
