import VPSGeometry

/// Stage 5 of a query: verification by projection over every frame of the query.
///
/// A pose (frame 0's `firstFromMap`) predicts where each frame sees the map's points; the points it
/// puts within a window of a keypoint are matched to it (`ProjectionMatching`), and the pose is
/// re-estimated from them (`PoseEstimation`). Passes at 10, 6 and 4 px × keypoint scale continue
/// while the support grows. A right pose from a dozen inliers gains dozens more; a wrong one gains
/// almost none, which is what makes this the verification of weak poses and of competitors.
struct ProjectionVerification {
    /// One matcher per frame.
    let matchers: [ProjectionMatching]
    let query: QueryFeatures
    let map: LocalizationMap

    init(_ query: QueryFeatures, map: LocalizationMap) {
        self.query = query
        self.map = map
        matchers = query.frames.map {
            ProjectionMatching(keypoints: $0.keypoints, descriptors: $0.descriptors, map: map, camera: $0.camera)
        }
    }

    /// A pose re-estimated from the correspondences it predicts.
    struct Verified {
        var correspondences: Correspondences
        var result: AbsolutePoseResult
        /// Inliers of the last estimate (the pose's support by projection).
        var support: Int { result.inlierCount }
    }

    /// Map points frame 0 could see from `pose` (frame 0's `firstFromMap`;
    /// `ProjectionMatching.visiblePoints`): what the pose predicts, of which its support is what the
    /// image confirms. One pass over the map's points.
    func visibleCount(_ pose: CameraPose) -> Int {
        matchers[0].visiblePoints(pose: query.camFromMap(0, pose), margin: 0).count
    }

    /// Grows `start`'s support by projection, re-estimating after each pass. Nil when the first pass
    /// finds no more support than `support` (a wrong pose predicts little the images show).
    func verify(
        pose start: CameraPose, support: Int, weightByScale: Bool, options: AbsolutePoseOptions
    ) -> Verified? {
        var pose = start
        var best: Verified?
        // The passes move the pose by a few pixels: the points visible from it, with a margin, suffice.
        let candidates = matchers.indices.map {
            matchers[$0].visiblePoints(pose: query.camFromMap($0, start), margin: 100)
        }
        for radius in [10.0, 6.0, 4.0] {
            var c = Correspondences()
            for (k, matcher) in matchers.enumerated() {
                for m in matcher.matches(pose: query.camFromMap(k, pose), radius: radius, among: candidates[k]) {
                    c.append(frame: k, feature: Int(m.query), point: m.train, query: query, map: map)
                }
            }
            guard c.count > (best?.support ?? support) else { break }
            // LO-RANSAC each pass: a pose several pixels off gathers some wrong matches.
            let refit = PoseEstimation.estimate(c, query: query, weightByScale: weightByScale, options: options)
            guard let p = refit.camFromWorld, refit.inlierCount > (best?.support ?? support) else { break }
            best = Verified(correspondences: c, result: refit)
            pose = p
        }
        return best
    }
}
