import VPSGeometry

/// Part of stage 7 for a single image: a second explanation of the winner's own matches.
///
/// A scene that is nearly one plane, seen at a slant, has a mirror pose: it reprojects most of the
/// same points, a little worse than the true one. On fountain-P11's last view (ORB, map of the other
/// ten images) 49 of 90 ratio-test matches lie within 6 px of the true pose (median 1.20 px) and 46
/// of a pose 6.3 m and 79° away (median 1.82 px). Which one RANSAC returns depends on the draw:
/// with `--observation-keyframes 4` it returned the mirror; with a map whose tracks were built
/// slightly differently and 3,000 features too, and verification by projection then raised the
/// mirror to 101 inliers and a confidence of 0.42. `RivalSearch` cannot see such a rival — its
/// candidates are the matches the winner does not explain, and here both poses explain the same
/// ones — so this stage searches the ratio-test matches themselves with the winner's region
/// excluded (`PoseExclusion`, `RivalSearch`'s distinctness radii). A pose that explains far fewer
/// of the matches (`minShare`) or fits them clearly worse (`worseFit`) than the winner is explained
/// away; otherwise it joins the competitors, whose support verification by projection measures
/// like the winner's — so a mirror that won keeps the true pose as its rival and is withheld.
enum PoseAmbiguity {
    /// Sampling iterations. A mirror pose shares the winner's inlier ratio (at least a third of the
    /// matches): 300 draws miss it with probability (1 − 1/27)³⁰⁰ < 10⁻⁴.
    static let iterations = 300
    /// A rival whose median residual over the matches it explains exceeds the winner's by more than
    /// this factor is explained away (about 2.5 standard errors of a median over 100 residuals).
    static let worseFit = 1.25
    /// A rival must explain at least this share of the matches the winner explains.
    static let minShare = 0.5

    /// How many of `matches` reproject within the RANSAC threshold from `pose`, and their median
    /// residual in pixels (infinity when none does).
    static func fit(
        of pose: CameraPose, to matches: Correspondences, camera: Camera, options: LocalizerOptions
    ) -> (explained: Int, medianResidual: Double) {
        let limit = options.pose.maxReprojectionError
        var residuals: [Double] = []
        for i in 0..<matches.count {
            guard let u = camera.project(pose.transform(matches.points[i])) else { continue }
            let d = (u - matches.pixels[i]).norm
            if d < limit { residuals.append(d) }
        }
        guard !residuals.isEmpty else { return (0, .infinity) }
        residuals.sort()
        return (residuals.count, residuals[residuals.count / 2])
    }

    /// The best pose over `matches` (frame 0) distinct from `winner`, with its RANSAC inliers, that
    /// explains the matches about as well as the winner; nil when there is none.
    static func rival(
        of winner: CameraPose, matches: Correspondences, query: QueryFeatures, options: LocalizerOptions
    ) -> (inliers: Int, pose: CameraPose)? {
        guard let found = search(excluding: winner, matches: matches, query: query, options: options) else {
            return nil
        }
        // The matches' verdict. A mirror explains about as many of them as the winner (fountain-P11
        // 0010.jpg: 46 against 49); a pose explaining a few (entry-P10 0008.jpg: 15 against 46, 18 m
        // along the façade) is no second explanation of these matches — a place elsewhere is
        // `RivalSearch`'s part. And a mirror reprojects them worse than the true pose, but about as
        // well as a winner that is itself the mirror: a rival whose median residual exceeds the
        // winner's by a quarter is explained away (0010.jpg: the mirror at 1.82 px against the true
        // pose at 1.20 px; from the mirror, the true pose is kept as its rival).
        let camera = query.frames[0].camera
        let rivalFit = fit(of: found.pose, to: matches, camera: camera, options: options)
        let winnerFit = fit(of: winner, to: matches, camera: camera, options: options)
        guard Double(rivalFit.explained) >= minShare * Double(winnerFit.explained),
            rivalFit.medianResidual <= worseFit * winnerFit.medianResidual
        else { return nil }
        return found
    }

    /// The best pose over `matches` (frame 0) outside `winner`'s region (`RivalSearch.sameOutcome`),
    /// with its RANSAC inliers; nil when none has 10 or the query is a rig.
    static func search(
        excluding winner: CameraPose, matches: Correspondences, query: QueryFeatures, options: LocalizerOptions
    ) -> (inliers: Int, pose: CameraPose)? {
        guard query.frames.count == 1, matches.count >= 10 else { return nil }
        var poseOptions = options.pose
        poseOptions.minInliers = 10
        poseOptions.refinementIterations = 5
        poseOptions.ransac.maxIterations = iterations
        poseOptions.ransac.seed = options.pose.ransac.seed &+ 101
        poseOptions.excluded = RivalSearch.sameOutcome(as: winner)
        let found = PoseEstimation.estimate(matches, query: query, weightByScale: false, options: poseOptions)
        guard let pose = found.camFromWorld, RivalSearch.isDistinct(pose, from: winner) else { return nil }
        return (found.inlierCount, pose)
    }
}
