import VPSFeatures
import VPSGeometry

/// Stage 4 of a map build: each track triangulated with the known poses, its outlying
/// observations removed, and the point kept only if its geometry is sound.
///
/// Filters, in order, each counted in the funnel: no finite triangulation (degenerate); fewer than
/// two observations within `reprojectionThreshold` px (reprojection); a predicted uncertainty above
/// `maxRelativePointSigma` of the distance to the nearest observing camera (uncertainty); a maximum
/// triangulation angle below `minTriangulationAngle` (angle); behind a camera or beyond `maxDepth`
/// (depth). All are in pixels, degrees or relative to the point's own depth.
struct TrackTriangulation {
    /// A kept point and the observations that support it.
    struct Point {
        var position: Vec3
        var nodes: [TrackBuilder.Node]
        /// Index of its track in the input.
        var track: Int
    }

    /// Kept points, in track order.
    var points: [Point] = []
    /// Reprojection errors of every kept observation, pixels.
    var errors: [Double] = []
    /// Counts of what each filter dropped.
    var droppedDegenerate = 0
    var droppedObservations = 0
    var droppedReprojection = 0
    var droppedUncertainty = 0
    var droppedAngle = 0
    var droppedDepth = 0

    /// A keypoint's standard deviation in normalized units: `keypointSigma` at the finest scale,
    /// growing with the pyramid level (ORB keypoint size over 31 px; SIFT keypoints are all fine).
    static func sigma(
        _ n: TrackBuilder.Node, frames: [MappingFrame], features: MapFeatures, options: MapBuildOptions
    ) -> Double {
        let referenceSize: Float = options.featureConfig.descriptorKind == .binary256 ? 31 : 1e9
        let scale = max(1, Double(features.sets[n.image].keypoints[n.keypoint].size / referenceSize))
        return options.keypointSigma * scale / frames[n.image].camera.meanFocal
    }

    init(
        tracks: [[TrackBuilder.Node]], frames: [MappingFrame], features: MapFeatures, options: MapBuildOptions
    ) {
        let centers = frames.map { $0.camFromMap.center }
        func sigma(_ n: TrackBuilder.Node) -> Double {
            Self.sigma(n, frames: frames, features: features, options: options)
        }
        func observations(_ nodes: [TrackBuilder.Node], weighted: Bool) -> [TriangulationObservation] {
            nodes.map {
                TriangulationObservation(
                    camFromWorld: frames[$0.image].camFromMap, normalized: features.normalized[$0.image][$0.keypoint],
                    sigma: weighted ? sigma($0) : 1)
            }
        }
        func reprojectionError(_ x: Vec3, _ n: TrackBuilder.Node) -> Double {
            let p = frames[n.image].camFromMap.transform(x)
            guard p.z > 0 else { return .infinity }
            return (Vec2(p.x / p.z, p.y / p.z) - features.normalized[n.image][n.keypoint]).norm
                * frames[n.image].camera.meanFocal
        }
        for (trackIndex, track) in tracks.enumerated() {
            var nodes = track
            var point: Vec3?
            var degenerate = false
            // Triangulate, drop the worst observation beyond the threshold, repeat.
            while nodes.count >= 2 {
                guard let x = triangulatePoint(observations(nodes, weighted: false)) else {
                    degenerate = true
                    break
                }
                let errs = nodes.map { reprojectionError(x, $0) }
                let worst = errs.indices.max { errs[$0] < errs[$1] }!
                if errs[worst] <= options.reprojectionThreshold {
                    point = x
                    break
                }
                nodes.remove(at: worst)
                droppedObservations += 1
            }
            guard let unweighted = point, nodes.count >= 2 else {
                if degenerate { droppedDegenerate += 1 } else { droppedReprojection += 1 }
                continue
            }
            let obs = observations(nodes, weighted: true)
            // The inlier views agree; the final estimate weights each by its keypoint's scale.
            let x =
                options.weightedTriangulation ? (triangulatePoint(obs, refineIterations: 10) ?? unweighted) : unweighted
            let viewCenters = nodes.map { centers[$0.image] }
            let depths = nodes.map { frames[$0.image].camFromMap.transform(x).z }
            guard depths.allSatisfy({ $0 > 0 }),
                options.maxDepth.map({ limit in viewCenters.allSatisfy { $0.distance(to: x) <= limit } }) ?? true
            else {
                droppedDepth += 1
                continue
            }
            let nearest = viewCenters.map { $0.distance(to: x) }.min()!
            guard let cov = triangulationCovariance(x, obs),
                SymmetricEigen3(cov).values.x.squareRoot() <= options.maxRelativePointSigma * nearest
            else {
                droppedUncertainty += 1
                continue
            }
            guard degrees(maximumTriangulationAngle(point: x, centers: viewCenters)) >= options.minTriangulationAngle
            else {
                droppedAngle += 1
                continue
            }
            points.append(Point(position: x, nodes: nodes, track: trackIndex))
            for n in nodes { errors.append(reprojectionError(x, n)) }
        }
    }
}
