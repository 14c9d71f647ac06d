import Dispatch
import Foundation
import VPSFeatures
import VPSGeometry
import VPSImaging
import VPSMap

/// Localization against a prepared map, for one image or several frames with known relative poses
/// (an AR session's tracking poses), which are one query: a single image is a rig of one.
///
/// The stages, one type each (`Sources/VPSLocalizer/Stages/`), report into one
/// `LocalizationFunnel`:
///
/// 1. `QueryFeatures` — each frame's features (the map's config, the mode's budget);
/// 2. `CandidateSearch` — retrieval of the keyframes the frames see, then every feature's two
///    nearest points among theirs;
/// 3. `Correspondences.ratioMatches` — Lowe's ratio test;
/// 4. `PoseEstimation` — LO-RANSAC (P3P, up2p with gravity, gP3P for rigs) and refinement;
/// 5. `ProjectionVerification` — a weak pose (every pose in VPS-2) re-estimated from the
///    correspondences it predicts;
/// 5b. `KeypointRefinement` — the inliers' keypoints aligned to their points' reference patches;
/// 6. `PoseTightening` — refit within a tight threshold (rig frames weighted by their tracking
///    drift) and the pose's uncertainty;
/// 7. `RivalSearch` — the best distinct competitor, for `inlierMargin`;
/// 8. `Localizer.confidence`.
///
/// Failure is explicit (a reason and the diagnostics), never a fallback pose.
public enum Localizer {
    /// Localizes one gray image.
    ///
    /// - Parameters:
    ///   - camera: the query's intrinsics.
    ///   - gravityInCamera: gravity (down) in the computer-vision camera frame, if the device knows it.
    /// - Returns: `camFromMap` with diagnostics, or the failure.
    ///   - features: the query's features kept for the next map (`QueryFeatureCache`: the maps of a
    ///     map set searched with one extraction); nil: extracted for this call alone.
    /// - Throws: `FeaturesError` from extraction (also `.descriptorKindMismatch` should the map's
    ///   features not be extractable as its family).
    public static func localize(
        image: GrayImage, camera: Camera, gravityInCamera: Vec3? = nil, map: LocalizationMap,
        options: LocalizerOptions = LocalizerOptions(), features: QueryFeatureCache? = nil
    ) throws(FeaturesError) -> LocalizationOutcome {
        let run = try LocalizationRun(
            [QueryFrame(image: image, camera: camera, gravityInCamera: gravityInCamera)], map: map, options: options,
            features: features)
        var out = LocalizationOutcome()
        out.camFromMap = run.firstFromMap
        out.failure = run.failure
        out.funnel = run.funnel
        out.inliers = run.inliers
        out.inlierMargin = run.inlierMargin
        out.confidence = run.confidence
        out.ransac = run.ransac
        out.positionSigma = run.positionSigma
        out.rotationSigmaDegrees = run.rotationSigmaDegrees
        out.retrieved = run.retrieved
        out.correspondences = run.correspondences
        return out
    }

    /// Localizes several frames with known relative poses jointly, as one generalized camera: every
    /// frame's matches enter one gP3P LO-RANSAC and one refinement, so the frames vote for a single
    /// map-to-tracking transform; the answer is pinned to the first frame, the others weighted by
    /// how far their tracking may have drifted from it (`LocalizerOptions.rigDrift`).
    ///
    /// - Parameters:
    ///   - images: the frames' gray images.
    ///   - cameras: their intrinsics.
    ///   - camFromRig: each frame's computer-vision camera pose in the rig (tracking) frame.
    ///   - options: as for single frames; hints apply to the first frame's camera.
    ///   - features: as for single frames (the frames are extracted in parallel either way).
    /// - Returns: `rigFromMap`; the first frame's camera is `camFromRig[0] · rigFromMap`.
    public static func localize(
        rig images: [GrayImage], cameras: [Camera], camFromRig: [CameraPose], map: LocalizationMap,
        options: LocalizerOptions = LocalizerOptions(), features: QueryFeatureCache? = nil
    ) throws(FeaturesError) -> RigLocalizationOutcome {
        let n = min(images.count, cameras.count, camFromRig.count)
        var out = RigLocalizationOutcome()
        guard n > 0 else {
            out.failure = .noRetrievalMatch
            return out
        }
        let frames = (0..<n).map { QueryFrame(image: images[$0], camera: cameras[$0], camFromRig: camFromRig[$0]) }
        let run = try LocalizationRun(frames, map: map, options: options, features: features)
        out.rigFromMap = run.firstFromMap.map { CameraPose(camFromRig[0].rigid.inverse * $0.rigid) }
        out.failure = run.failure
        out.funnel = run.funnel
        out.inliers = run.inliers
        out.inlierMargin = run.inlierMargin
        out.confidence = run.confidence
        out.positionSigma = run.positionSigma
        out.rotationSigmaDegrees = run.rotationSigmaDegrees
        return out
    }

    /// The confidence from which a pose is answered (SPEC §18.2); below it a pose is withheld as
    /// `LOW_CONFIDENCE` (server, CLI).
    public static let answerConfidence = 0.2

    /// Confidence in [0, 1]: the product of inlier evidence, distinctness and conditioning,
    ///
    ///     (1 − e^(−n/60)) · clamp((margin − 1.6) / 2.4, 0, 1) · clamp((d − 10) / 15, 0, 1)
    ///         · 1 / (1 + (σp / 8 cm)⁴ + (σr / 0.8°)⁴)
    ///
    /// - evidence: n inliers; 30 give 0.39, 50 give 0.57, 150 give 0.92;
    /// - descriptor evidence: d, the inliers among the ratio-test matches before verification by
    ///   projection. Projection confirms a pose from a dozen matches, but on repeated structure (the
    ///   doors of a corridor) it confirms a wrong one as well: every door predicts door-like
    ///   matches. A pose the descriptors alone found from fewer than 20 matches is discounted (on
    ///   the simulated venues the wrong answers it removes had 8–12; 6 of ~400 right ones are below 20);
    /// - distinctness: two places that explain the image about equally stay at 0 whatever the
    ///   inliers (SPEC §18.3), and the answer reaches 0.2 only when the winner explains about twice
    ///   what its best competitor does. The margin compares like with like: a competitor with ≥ 10
    ///   inliers and the winner are both measured by the correspondences they predict
    ///   (`ProjectionVerification`), so a twin place shows its full support (margins 1.0–1.9 for
    ///   every wrong answer of the calibration's twin-room venues, 2.07 for one first fix of the SDK
    ///   end-to-end twin-room walk, whose coarse map covers the two rooms unequally — hence the
    ///   ramp from 1.6, where that fix has 0.18), while a façade whose pattern repeats at its
    ///   period lends a shifted pose part of the winner's support (margins 2.2–4 for right answers
    ///   on entry-P10, the shifted pose explaining a third of what the winner does). A rig's margin
    ///   is the lower of that comparison and the raw one — its rival's inliers among the candidates
    ///   against the winner's descriptor inliers — since projection can also inflate a wrong rig pose
    ///   found from a few matches;
    /// - conditioning: σp, σr are the first-order position (metres) and rotation (degrees)
    ///   uncertainty for the noise the inliers' residuals show (`PoseTightening`; about one σ is
    ///   the median error on real and simulated queries). Inliers crowded on one distant
    ///   plane pin the pose down poorly: on the simulated venues the wrong answer with the most
    ///   support (141 inliers, margin 14, 8° off) has σr 1.3°, correct answers a median of 0.06°.
    ///   The position scale (8 cm) answers (confidence ≥ 0.2) only σp ≤ 11.3 cm, so that an error of
    ///   4.4 σ stays inside the 0.5 m wrong-answer limit: on real images σ falls short of the error by
    ///   up to 3.9× where the map sees the query's surroundings only from far or at grazing angles
    ///   (a 4-frame rig on the development set scaled ×4, 0.52–0.59 m off at σp 13–15 cm; at 15 cm
    ///   those had confidence 0.5–0.6). A façade seen from 15 m has σp of 1–4 cm. First-order σ
    ///   cannot see a second optimum: when one near the winner explains the matches about as well
    ///   (`PoseAmbiguity.nearRival`), σ is at least their distance.
    ///
    /// Calibrated on simulated venues (docs/EVALUATION.md): among answers with confidence ≥ 0.3 at
    /// most 1 % may be wrong (> 0.5 m or > 5°), at ≥ 0.2 at most 3 % (SPEC §18.2).
    public static func confidence(
        inliers: Int, margin: Double, positionSigma: Double = 0, rotationSigmaDegrees: Double = 0,
        descriptorInliers: Int? = nil
    ) -> Double {
        let evidence: Double = 1 - exp(-Double(inliers) / 60)
        let distinctness: Double = min(1, max(0, (margin - 1.6) / 2.4))
        let descriptorEvidence: Double = descriptorInliers.map { min(1, max(0, Double($0 - 10) / 15)) } ?? 1
        guard positionSigma.isFinite, rotationSigmaDegrees.isFinite else { return 0 }
        let conditioning = 1 / (1 + pow(positionSigma / 0.08, 4) + pow(rotationSigmaDegrees / 0.8, 4))
        return evidence * distinctness * descriptorEvidence * conditioning
    }
}

/// One query through the stages (`Localizer`), frame 0's pose as the answer.
struct LocalizationRun {
    var firstFromMap: CameraPose?
    var failure: LocalizationFailure?
    var funnel = LocalizationFunnel()
    var inliers = 0
    var inlierMargin: Double?
    var confidence = 0.0
    var ransac = RansacStats()
    var positionSigma = Double.infinity
    var rotationSigmaDegrees = Double.infinity
    var retrieved: [(keyframe: Int, votes: Int)] = []
    var correspondences: (pixels: [Vec2], points: [Vec3], inliers: [Bool])?

    init(
        _ frames: [QueryFrame], map: LocalizationMap, options: LocalizerOptions, features: QueryFeatureCache? = nil
    ) throws(FeaturesError) {
        var clock = DispatchTime.now().uptimeNanoseconds
        var funnel = LocalizationFunnel()
        func lap(_ stage: String) {
            let now = DispatchTime.now().uptimeNanoseconds
            funnel.seconds[stage, default: 0] += Double(now - clock) / 1e9
            clock = now
        }
        defer { self.funnel = funnel }

        // 1. Features.
        let deadline = options.pose.ransac.deadline
        let query: QueryFeatures
        if let features {
            query = try features.features(frames, map: map, mode: options.mode, deadline: deadline)
        } else {
            query = try QueryFeatures(frames, map: map, mode: options.mode, deadline: deadline)
        }
        funnel.features = query.count
        lap("extract")
        // A query past its deadline (`RansacOptions.deadline`) stops at the next stage boundary,
        // with no answer; the engine reports the timeout.
        guard !options.pose.ransac.deadline.hasPassed else { return }
        guard funnel.features > 0 else {
            failure = .noRetrievalMatch
            return
        }
        let single = query.frames.count == 1

        // 2. Retrieval and candidate neighbours.
        let search = CandidateSearch(
            query, map: map, mode: options.mode, hints: options.hints,
            keyframes: single ? options.mode.retrievedKeyframes : 2 * options.mode.retrievedKeyframes,
            observationKeyframes: options.observationKeyframes)
        let neighbors = query.frames.map { search.neighbors($0.descriptors) }
        funnel.seconds["retrieve"] = search.retrievalSeconds
        funnel.retrievedKeyframes = search.retrieval.keyframes.count
        funnel.candidatePoints = search.candidateCount
        retrieved = search.retrieval.keyframes.map { ($0.index, $0.votes) }

        // 3. Ratio-test matches.
        let matches = Correspondences.ratioMatches(
            neighbors, query: query, map: map, ratio: options.ratio ?? options.mode.ratio)
        funnel.matches = matches.count
        lap("match")
        funnel.seconds["match"]! -= search.retrievalSeconds
        guard !options.pose.ransac.deadline.hasPassed else { return }
        guard matches.count >= (options.guidedMatching ? 8 : max(6, options.minInliers)) else {
            failure = .noRetrievalMatch
            return
        }

        // 4. Pose.
        var used = matches
        var result = PoseEstimation.estimate(
            matches, query: query, weightByScale: options.weightByScale, options: options.pose)
        ransac = result.ransac
        funnel.ransacInliers = result.inlierCount
        lap("pose")
        guard !options.pose.ransac.deadline.hasPassed else { return }

        // 5. Verification by projection of a weak pose (every pose in VPS-2).
        let verification = ProjectionVerification(query, map: map)
        if options.guidedMatching, options.mode.verifiesEveryPose || result.inlierCount < options.guidedBelow,
            result.inlierCount >= 8, let hypothesis = result.camFromWorld
        {
            // Few descriptor matches agree, but a pose from a dozen may still be right: the
            // correspondences it predicts confirm it (or it stays a failure).
            if let verified = verification.verify(
                pose: hypothesis, support: result.inlierCount, weightByScale: options.weightByScale,
                options: options.pose)
            {
                used = verified.correspondences
                result = verified.result
                funnel.guidedMatches = verified.correspondences.count
                funnel.guidedInliers = verified.support
            }
            lap("guided")
        }
        inliers = result.inlierCount
        if options.keepCorrespondences { correspondences = (used.pixels, used.points, result.inliers) }
        guard let ransacPose = result.camFromWorld, result.inlierCount >= options.minInliers else {
            failure = .tooFewInliers
            return
        }

        // 5b. Inlier keypoints aligned to their points' reference patches.
        guard !options.pose.ransac.deadline.hasPassed else { return }
        if options.refineKeypoints, map.data.pointPatches != nil {
            let refinement = KeypointRefinement(
                used, inliers: result.inliers, query: query, map: map, alignment: options.patchAlignment,
                limit: options.maxRefinedKeypoints ?? options.mode.refinedKeypoints,
                sigmaFactor: options.refinedKeypointSigma)
            used = refinement.correspondences
            funnel.refinedKeypoints = refinement.refined
            lap("refine")
        }

        // 6. Tight refit and uncertainty.
        let tight = PoseTightening(
            pose: ransacPose, correspondences: used, query: query, map: options.weightByPointUncertainty ? map : nil,
            weightByScale: options.weightByScale,
            drift: options.rigDrift)
        let pose = options.tighten ? tight.pose : ransacPose
        positionSigma = tight.positionSigma
        rotationSigmaDegrees = tight.rotationSigmaDegrees
        funnel.tightInliers = tight.inlierCount
        if options.keepCorrespondences { correspondences = (used.pixels, used.points, tight.inliers) }
        lap("tighten")
        guard options.hints.contains(pose.center) else {
            failure = .outsideHintRegion
            return
        }
        firstFromMap = pose

        // 7. The best distinct competitor — and first a second optimum near the winner: two poses
        // the matches support alike leave the answer uncertain by their distance (`nearRival`).
        guard !options.pose.ransac.deadline.hasPassed else { return }
        let reference = PoseAmbiguity.Reference(winner: pose, matches: matches, query: query, options: options)
        if let near = PoseAmbiguity.nearRival(
            of: pose, matches: matches, query: query, options: options, reference: reference)
        {
            positionSigma = max(positionSigma, near.positionMeters)
            rotationSigmaDegrees = max(rotationSigmaDegrees, near.rotationDegrees)
            funnel.nearRival = true
        }
        lap("ambiguity")
        let rival = RivalSearch(
            winner: pose, neighbors: neighbors, matches: matches, query: query, map: map,
            probeWholeMap: search.restricted, ambiguity: reference, probed: search.probe, options: options)
        lap("rivals")
        // Like with like: a twin place found from a handful of second neighbours has far more support
        // than they show, so both poses are measured by the correspondences they predict (`verified`;
        // on entry-P10 seen through a fisheye lens, a rig answered the façade's repeat 12 m away on raw
        // inliers at margin 2.6, where its verified margin is 1.3).
        // A rig's margin is also held to the evidence its pose was found from — its descriptor inliers
        // over 10, the margin they would give against no rival: on the corridor venue a rig pose 9 m and
        // 160° off rested on 20 of 485 matches, projection raised it to 86, and with no rival confirmed
        // it read as margin 8.6 (floor: 2.0). Comparing those inliers with the rival's among its
        // candidates (both nearest points of every feature, no ratio test) is not like with like: once
        // the rival search finds the façade's repeat, entry-P10's rigs read margins of 0.4–0.8 that
        // projection measures at 1.3–1.5.
        let verified =
            options.guidedMatching
            ? Self.verifiedComparison(
                pose, support: result.inlierCount, verifiedAlready: funnel.guidedMatches > 0, rival: rival,
                verification: verification, options: options)
            : nil
        if options.keepCorrespondences, let rivalPose = verified?.rival {
            // Diagnostics (a pass over the map each): what each pose predicts.
            funnel.competitorVisible = verification.visibleCount(rivalPose)
            funnel.supportVisible = verification.visibleCount(pose)
        }
        let rawSupport = funnel.guidedMatches == 0 ? result.inlierCount : funnel.ransacInliers
        // Without verification a rig's margin is the raw one (its descriptor inliers, the rival's
        // among the candidates); with it, the verified one under the descriptor floor.
        let support = verified?.support ?? (single ? result.inlierCount : rawSupport)
        let competitor = verified?.competitor ?? rival.inliers
        var margin = Double(support) / Double(max(10, competitor))
        if !single, verified != nil { margin = min(margin, Double(rawSupport) / 10) }
        funnel.competitorInliers = competitor
        funnel.support = support

        // 8. Confidence.
        inlierMargin = min(99, margin)
        confidence = Localizer.confidence(
            inliers: result.inlierCount, margin: inlierMargin!, positionSigma: positionSigma,
            rotationSigmaDegrees: rotationSigmaDegrees, descriptorInliers: funnel.ransacInliers)
        lap("margin")
    }
}

extension LocalizationRun {
    /// The winner's and its strongest rival's support by projection (`ProjectionVerification`), and
    /// the rival's pose.
    ///
    /// The three strongest rivals are measured (a meaningless pose can draw more raw inliers from its
    /// candidates than a real second place); a rival its own predictions do not confirm, or that
    /// projection pulls onto the winner (a fragment of it), is no place: competitor 0. A rival that
    /// explains more than the winner leaves a margin below 1: the answer is withheld (confidence 0)
    /// rather than swapped — a rival's support on repeated texture is no better evidence than the
    /// winner's.
    fileprivate static func verifiedComparison(
        _ pose: CameraPose, support: Int, verifiedAlready: Bool, rival: RivalSearch,
        verification: ProjectionVerification, options: LocalizerOptions
    ) -> (support: Int, competitor: Int, rival: CameraPose?) {
        // The candidates are verified independently (on the cores there are), then compared in order.
        // The winner's own measure, needed whenever a rival stands, runs beside them (the last slot); when
        // every candidate turns out no place it was spent for nothing (one verification, ~1.5 ms).
        let candidates = rival.found.prefix(3).filter { $0.inliers >= 10 }
        guard !candidates.isEmpty else { return (support, 0, nil) }
        let tasks = candidates.count + (verifiedAlready ? 0 : 1)
        let results = ResultsBox<ProjectionVerification.Verified?>.concurrentMap(tasks) { j in
            verification.verify(
                pose: j < candidates.count ? candidates[j].pose : pose, support: 0,
                weightByScale: options.weightByScale, options: options.pose)
        }
        var strongest: ProjectionVerification.Verified?
        for verified in results.prefix(candidates.count) {
            guard let verified, let p = verified.result.camFromWorld, RivalSearch.isDistinct(p, from: pose) else {
                continue
            }
            if verified.support > (strongest?.support ?? 0) { strongest = verified }
        }
        guard let strongest else { return (support, 0, nil) }
        // A pose descriptors found is measured by projection too (`verifiedAlready`: it was).
        let measured = verifiedAlready ? support : results[candidates.count]?.support ?? support
        return (measured, strongest.support, strongest.result.camFromWorld)
    }
}
