import Foundation
import VPSFeatures
import VPSGeometry
import VPSMap

/// Stage 7 of a query: the strongest distinct competitor of the winning pose (SPEC §18.3), behind
/// `inlierMargin` and the confidence's distinctness.
///
/// Competitors are searched among both nearest map points of every query feature, without the
/// ratio test: in a place with a twin (a repeated room), the twin's points are exactly the second
/// neighbours the ratio test discards. Twin candidates come first: features the winner explains
/// through one of their two nearest points, paired with the other one — a repeated place explains
/// the same features through the twin points, so its hypothesis dominates this small set. The
/// strongest features also look up their nearest points over the whole map (the light retrieval
/// probe), so a place outside the retrieved keyframes is found too, and the candidates are searched
/// place by place (the keyframes observing most of them), where a second place is the majority.
struct RivalSearch {
    /// The strongest competitor's inliers among the candidates and its pose (nil: none distinct found).
    var inliers = 0
    var pose: CameraPose?
    /// Every distinct competitor found (one per candidate subset at most), most inliers first.
    var found: [(inliers: Int, pose: CameraPose)] = []

    /// A competitor is distinct from the winner when frame 0's camera is at least this far from
    /// the winner's (metres) or turned at least this much (degrees): SPEC's "different place".
    static let distinctMeters = 2.0
    static let distinctDegrees = 20.0

    /// The poses not distinct from `pose`: its region of `distinctMeters` and `distinctDegrees`.
    static func sameOutcome(as pose: CameraPose) -> PoseExclusion {
        PoseExclusion(around: pose, positionMeters: distinctMeters, rotationDegrees: distinctDegrees)
    }

    /// Distinct means frame 0's camera ≥ 2 m or ≥ 20° from the winner's.
    static func isDistinct(_ a: CameraPose, from b: CameraPose) -> Bool {
        !sameOutcome(as: b).contains(a)
    }

    /// Searches for the competitor of `winner` (frame 0's `firstFromMap`).
    ///
    /// - Parameters:
    ///   - neighbors: per frame, the candidate search's two nearest points of each feature.
    ///   - matches: the ratio-test correspondences.
    ///   - probeWholeMap: also probe the whole map (`probeWholeMap`; when retrieval restricted the
    ///     candidates).
    ///   - ambiguity: the winner as `PoseAmbiguity` compares with, if already computed.
    ///   - probed: the retrieval probe's lookups (`CandidateSearch.probe`), reused by the whole-map
    ///     probe for the features both look up.
    init(
        winner: CameraPose, neighbors: [NearestNeighbors], matches: Correspondences, query: QueryFeatures,
        map: LocalizationMap, probeWholeMap: Bool, ambiguity: PoseAmbiguity.Reference? = nil,
        probed: CandidateSearch.Probe? = nil, options: LocalizerOptions
    ) {
        let limits = map.descriptors.limits
        let threshold = options.pose.maxReprojectionError
        let cameras = query.frames.indices.map { query.camFromMap($0, winner) }
        func explains(_ k: Int, _ q: Int, _ p: Int32) -> Bool {
            guard let u = query.frames[k].camera.project(cameras[k].transform(map.data.positions[Int(p)])) else {
                return false
            }
            return (u - query.frames[k].pixel(q)).squaredNorm < threshold * threshold
        }
        var twins = Correspondences(), others = Correspondences()
        for (k, frameNeighbors) in neighbors.enumerated() {
            for q in 0..<frameNeighbors.queryCount {
                let candidates = frameNeighbors[q].filter { $0.distance <= limits.plausible }
                let explained = candidates.map { explains(k, q, $0.train) }
                for (m, isExplained) in zip(candidates, explained) where !isExplained {
                    if explained.contains(true) {
                        twins.append(frame: k, feature: q, point: m.train, query: query, map: map)
                    } else {
                        others.append(frame: k, feature: q, point: m.train, query: query, map: map)
                    }
                }
            }
        }
        var all = twins
        all.append(contentsOf: others)
        let firstCamera = query.camFromMap(0, winner)
        var subsets = [twins, all] + Self.places(among: all, map: map, awayFrom: firstCamera, count: 2)
        if probeWholeMap {
            // Places outside the retrieved keyframes, from their own votes (the local candidates,
            // ten times as many, would outvote them).
            var globalTwins = Correspondences(), globalOthers = Correspondences()
            var explainedFeatures = [Set<Int>](repeating: [], count: query.frames.count)
            for i in 0..<matches.count
            where explains(matches.frames[i], Int(matches.features[i]), matches.pointIndices[i]) {
                explainedFeatures[matches.frames[i]].insert(Int(matches.features[i]))
            }
            Self.probeWholeMap(
                of: winner, query: query, map: map, mode: options.mode, threshold: threshold,
                explained: explainedFeatures, probed: probed, twins: &globalTwins, others: &globalOthers)
            var global = globalTwins
            global.append(contentsOf: globalOthers)
            subsets += Self.places(among: global, map: map, awayFrom: firstCamera, count: 2)
            subsets[0].append(contentsOf: globalTwins)
            subsets[1].append(contentsOf: globalTwins)
        }
        // The subsets' searches and the mirror's (the winner's own matches may have a second
        // explanation, a planar scene's mirror pose) are independent and each seeded: they run on
        // the cores there are and are collected in order, so the rivals are those one thread finds.
        let searched = subsets
        let rivals = ResultsBox<(inliers: Int, pose: CameraPose)?>.concurrentMap(searched.count + 1) { j in
            guard j < searched.count else {
                return PoseAmbiguity.rival(
                    of: winner, matches: matches, query: query, options: options, reference: ambiguity)
            }
            let found = Self.bestCompetitor(of: winner, among: searched[j], query: query, map: map, options: options)
            return found.pose.map { (found.inliers, $0) }
        }
        self.found += rivals.compactMap { $0 }
        self.found.sort { $0.inliers > $1.inliers }
        if let best = self.found.first {
            inliers = best.inliers
            pose = best.pose
        }
    }

    /// The candidates grouped by place: those whose points the `count` keyframes observing most
    /// of them observe, one subset per keyframe (at least 10 candidates each).
    ///
    /// A second place (a twin room, the room seen through a door, the far end of a symmetric
    /// corridor) is seen by a few keyframes; among the candidates those keyframes observe its pose
    /// is the majority, where over all candidates it may be a few percent — too rare for a bounded
    /// P3P search to draw a clean sample.
    ///
    /// Only keyframes away from `camera` (≥ 2 m or ≥ 20°) are places: the subsets of the winner's
    /// own surroundings are searched as a whole.
    static func places(
        among candidates: Correspondences, map: LocalizationMap, awayFrom camera: CameraPose, count: Int = 3
    ) -> [Correspondences] {
        // Votes and the distinctness test per keyframe in flat arrays (a dictionary's hashing was a
        // tenth of the rival search).
        let keyframeCount = map.data.keyframes.count
        var votes = [Int](repeating: 0, count: keyframeCount)
        var away = [Int8](repeating: -1, count: keyframeCount)
        for p in candidates.pointIndices {
            for k in map.keyframes(observing: Int(p)) {
                let kf = Int(k)
                if away[kf] < 0 {
                    away[kf] = isDistinct(CameraPose(map.data.keyframes[kf].camFromMap), from: camera) ? 1 : 0
                }
                if away[kf] == 1 { votes[kf] += 1 }
            }
        }
        let top = votes.indices.filter { votes[$0] >= 10 }.sorted {
            votes[$0] != votes[$1] ? votes[$0] > votes[$1] : $0 < $1
        }
        .prefix(count).map { Int32($0) }
        // Each place's candidates in their order, in one pass over the candidates.
        var members = [[Int]](repeating: [], count: top.count)
        for (i, p) in candidates.pointIndices.enumerated() {
            for k in map.keyframes(observing: Int(p)) {
                guard let t = top.firstIndex(of: k), members[t].last != i else { continue }
                members[t].append(i)
            }
        }
        return members.map { candidates.subset($0) }
    }

    private init(inliers: Int, pose: CameraPose?) {
        self.inliers = inliers
        self.pose = pose
    }

    /// Candidates from the whole map, outside the retrieved keyframes: `SearchMode.retrievalFeatures`
    /// features over all frames look up their 4 nearest points by retrieval code (the light probe of
    /// the map's index) — first those whose ratio-test match the winner explains (`explained`, per
    /// frame), strongest first, then the strongest of the rest. A plausible neighbour of a feature the
    /// winner explains is a twin candidate when it lies more than 1 m from the point the winner used;
    /// every plausible neighbour of a feature the winner does not explain is a candidate of another
    /// place.
    ///
    /// The explained features go first because a twin place explains exactly those, through its own
    /// points: probing by response alone spends the budget on features that match nothing (a wrong
    /// answer in a twin room whose true room the map covers thinly kept a margin of 3.25 so).
    ///
    /// Features the retrieval probe already looked up (`probed`, the same 4 nearest by the same index)
    /// are not looked up again; on a VPS-1 query most of them are.
    static func probeWholeMap(
        of winner: CameraPose, query: QueryFeatures, map: LocalizationMap, mode: SearchMode, threshold: Double,
        explained: [Set<Int>], probed: CandidateSearch.Probe? = nil, twins: inout Correspondences,
        others: inout Correspondences
    ) {
        let cameras = query.frames.indices.map { query.camFromMap($0, winner) }
        let perFrame = max(50, mode.retrievalFeatures / max(1, query.frames.count))
        var probes: [(frame: Int, feature: Int)] = []
        var codes: [UInt64] = []
        for (k, frame) in query.frames.enumerated() {
            var subset = Array(0..<frame.keypoints.count)
            let response = frame.responses
            if subset.count > perFrame {
                var first = [Bool](repeating: false, count: subset.count)
                for e in explained[k] where e >= 0 && e < first.count { first[e] = true }
                subset.sort {
                    let a = first[$0], b = first[$1]
                    if a != b { return a }
                    return response[$0] != response[$1] ? response[$0] > response[$1] : $0 < $1
                }
                subset = Array(subset.prefix(perFrame))
            }
            probes += subset.map { (k, $0) }
            let fresh = subset.filter { q in probed.map { $0.rows[k][q] < 0 } ?? true }
            codes += map.codes(of: frame.descriptors.subset(fresh.map { Int32($0) })).words
        }
        guard !probes.isEmpty else { return }
        let limits = map.descriptors.limits
        let global = map.nearestByCode(BinaryDescriptors(words: codes), k: CandidateSearch.Probe.k)
        var freshRow = 0
        for probe in probes {
            let (k, q) = probe
            let px = query.frames[k].pixel(q)
            let neighbours: ArraySlice<Match>
            if let probed, probed.rows[k][q] >= 0 {
                neighbours = probed.neighbors[Int(probed.rows[k][q])]
            } else {
                neighbours = global[freshRow]
                freshRow += 1
            }
            let plausible = neighbours.filter {
                query.frames[k].descriptors.distance(q, to: map.descriptors, Int($0.train)) <= limits.plausible
            }
            let used = plausible.first { m in
                guard let u = query.frames[k].camera.project(cameras[k].transform(map.data.positions[Int(m.train)]))
                else { return false }
                return (u - px).squaredNorm < threshold * threshold
            }
            for m in plausible where m.train != used?.train {
                if let used {
                    guard map.data.positions[Int(m.train)].distance(to: map.data.positions[Int(used.train)]) > 1
                    else { continue }
                    twins.append(frame: k, feature: q, point: m.train, query: query, map: map)
                } else {
                    others.append(frame: k, feature: q, point: m.train, query: query, map: map)
                }
            }
        }
    }

    /// The strongest pose at least 2 m or 20° from `winner` among `candidates`, by a bounded
    /// LO-RANSAC: a rival's pose is enough, its support is then measured by projection. A twin place
    /// is found early; weak competitors may be missed (uncapped, a query with no real competitor
    /// costs up to 100k iterations, ~75 ms).
    ///
    /// Up to four rounds, each on the candidates earlier rounds did not explain: a near-duplicate of
    /// the winner is dropped, and so is a pose from which most of its inliers could not be seen
    /// (`LocalizationMap.canBeSeen`: behind their surface, or so far or near that the descriptors
    /// could not match). Among a hundred twin candidates, P3P readily finds such a pose — a camera
    /// tens of metres away that shrinks the map into a few pixels explains 20 chance matches — and
    /// it would hide the real second place (which projection then could not confirm either). A
    /// round whose best pose has fewer than 10 inliers ends the search: nothing that weak counts as a
    /// rival, and on the same candidates a later round would only draw chance again (on the
    /// calibration venues this leaves all 954 answers as they were and cuts the stage by a third).
    static func bestCompetitor(
        of winner: CameraPose, among candidates: Correspondences, query: QueryFeatures, map: LocalizationMap,
        options: LocalizerOptions
    ) -> RivalSearch {
        var remaining = Array(0..<candidates.count)
        let minCos = cos(ProjectionMatching.defaultMaxViewAngleDegrees * .pi / 180)
        for round in 0..<4 {
            guard remaining.count >= 10 else { break }
            var poseOptions = options.pose
            // Fewer than 10 is no rival (a verified rival needs 10; a margin's denominator is at
            // least 10), and the rounds after such a round only redraw the same chance matches.
            poseOptions.minInliers = 10
            // A rig searches its frames one by one, each with half this budget (`framewiseRigPose`):
            // on entry-P10's rigs as steady under the seed as the whole budget each, at half the cost.
            poseOptions.ransac.maxIterations =
                query.frames.count == 1 ? options.competitorIterations : options.competitorIterations / 2
            poseOptions.refinementIterations = 5
            // A place's subset is often 10–25 candidates: each triple once, not 2,500 draws of them.
            poseOptions.ransac.exhaustiveSmallSets = true
            poseOptions.ransac.seed = options.pose.ransac.seed &+ UInt64(round + 1)
            let subset = candidates.subset(remaining)
            let result =
                query.frames.count == 1
                ? Hypothesis(PoseEstimation.estimate(subset, query: query, weightByScale: false, options: poseOptions))
                : Self.framewiseRigPose(subset, query: query, options: poseOptions)
            guard let pose = result.pose else { break }
            let centers = query.frames.indices.map { query.camFromMap($0, pose).center }
            let seen = (0..<subset.count).filter {
                result.inliers[$0]
                    && map.canBeSeen(Int(subset.pointIndices[$0]), from: centers[subset.frames[$0]], minCos: minCos)
            }.count
            if isDistinct(pose, from: winner), 2 * seen > result.inlierCount {
                return RivalSearch(inliers: seen, pose: pose)
            }
            remaining = zip(remaining, result.inliers).filter { !$0.1 }.map(\.0)
        }
        return RivalSearch(inliers: 0, pose: nil)
    }
}

extension RivalSearch {
    /// A competitor's pose (frame 0's `firstFromMap`) and its inliers among the candidates.
    struct Hypothesis {
        var pose: CameraPose?
        var inliers: [Bool]
        var inlierCount: Int { inliers.reduce(0) { $0 + ($1 ? 1 : 0) } }

        init(pose: CameraPose?, inliers: [Bool]) {
            self.pose = pose
            self.inliers = inliers
        }

        init(_ result: AbsolutePoseResult) {
            self.init(pose: result.camFromWorld, inliers: result.inliers)
        }
    }

    /// A rig's strongest pose among `c`, found frame by frame: a P3P search in each frame's own
    /// candidates (`options.ransac.maxIterations` each), the frame's pose carried to the rig through
    /// its known `camFromFirst`; the rig pose that explains most candidates over all frames is refitted
    /// on them over the rig (gP3P's local optimisation) and counted again.
    ///
    /// A second place moves every frame of a rig alike, so each frame's candidates hold it, at about
    /// the share it has among all of them; a P3P solve costs a sixth of a gP3P one. One gP3P search
    /// over all frames at a third of the single-image budget found entry-P10's façade repeat (12 m
    /// along the row) under some seeds and not others: its rigs' confidence flipped between 0.97 and
    /// 0.00 with the seed, and the same four images answered or not depending on which was frame 0.
    ///
    /// - Complexity: per frame, a P3P search of `options.ransac.maxIterations` draws and a pass over `c`.
    static func framewiseRigPose(
        _ c: Correspondences, query: QueryFeatures, options: AbsolutePoseOptions
    ) -> Hypothesis {
        let frames = query.frames.count
        var perFrame = options
        let threshold = options.maxReprojectionError
        func inliers(_ firstFromMap: CameraPose) -> [Bool] {
            let cameras = (0..<frames).map { query.camFromMap($0, firstFromMap) }
            return c.pixels.indices.map {
                PoseEstimation.explains(c, $0, cameras: cameras, query: query, pixels: threshold)
            }
        }
        var best = Hypothesis(pose: nil, inliers: [])
        for k in 0..<frames {
            let mine = c.frames.indices.filter { c.frames[$0] == k }
            guard mine.count >= max(4, options.minInliers) else { continue }
            perFrame.ransac.seed = options.ransac.seed &+ UInt64(k) &* 0x9E37_79B9_7F4A_7C15
            let r = estimateAbsolutePose(
                pixels: mine.map { c.pixels[$0] }, points: mine.map { c.points[$0] }, camera: query.frames[k].camera,
                gravityInCamera: query.frames[k].gravityInCamera, options: perFrame)
            guard let camFromMap = r.camFromWorld else { continue }
            let firstFromMap = CameraPose(query.frames[k].camFromFirst.rigid.inverse * camFromMap.rigid)
            let candidate = Hypothesis(pose: firstFromMap, inliers: inliers(firstFromMap))
            if candidate.inlierCount > best.inlierCount { best = candidate }
        }
        guard best.pose != nil, best.inlierCount >= options.minInliers else {
            return Hypothesis(pose: nil, inliers: [])
        }
        var refitOptions = options
        refitOptions.ransac.maxIterations = 50
        let refit = PoseEstimation.estimate(
            c.subset(best.inliers.indices.filter { best.inliers[$0] }), query: query, weightByScale: false,
            options: refitOptions)
        if let p = refit.camFromWorld {
            let again = Hypothesis(pose: p, inliers: inliers(p))
            if again.inlierCount >= best.inlierCount { best = again }
        }
        return best
    }
}

extension Correspondences {
    /// Appends every correspondence of `other`.
    mutating func append(contentsOf other: Correspondences) {
        pixels += other.pixels
        points += other.points
        pointIndices += other.pointIndices
        frames += other.frames
        features += other.features
        sigmas += other.sigmas
    }
}
