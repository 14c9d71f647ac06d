import VPSGeometry

/// Stage 3b of a map build from odometry poses (`MapBuildOptions.poseAdjustment`): the tracks
/// triangulated with generous limits, then poses and points adjusted together (`BundleAdjustment`)
/// under priors from the input poses — consecutive frames' relative poses, every frame's gravity
/// direction, the first frame's pose. Repeated for `rounds`, each triangulating with the poses the
/// last one found. The final triangulation (stage 4) then applies the strict limits to the adjusted
/// poses.
struct PoseAdjustment {
    /// The frames with adjusted poses, in input order.
    var frames: [MappingFrame]
    /// What the adjustment did (kept in the funnel).
    var summary = PoseAdjustmentSummary()

    init(
        tracks: [[TrackBuilder.Node]], frames input: [MappingFrame], features: MapFeatures, options: MapBuildOptions,
        adjustment: PoseAdjustmentOptions
    ) {
        frames = input
        guard input.count >= 2 else { return }
        let priors = Self.priors(input, adjustment)
        var firstRMS: Double?
        for round in 0..<adjustment.rounds {
            // The first round keeps observations the drift moved; later ones, with the poses corrected,
            // face the final limit (a wrong match kept at a wide limit would bend the map).
            var limits = options
            if round == 0 {
                limits.reprojectionThreshold = max(
                    options.reprojectionThreshold, adjustment.initialReprojectionThreshold)
            }
            let triangulation = TrackTriangulation(tracks: tracks, frames: frames, features: features, options: limits)
            var observations: [BundleAdjustment.Observation] = []
            for (index, point) in triangulation.points.enumerated() {
                for n in point.nodes {
                    observations.append(
                        .init(
                            frame: n.image, point: index, normalized: features.normalized[n.image][n.keypoint],
                            weight: 1
                                / TrackTriangulation.sigma(n, frames: frames, features: features, options: options)))
                }
            }
            guard !observations.isEmpty else { break }
            var problem = BundleAdjustment(
                poses: frames.map(\.camFromMap), points: triangulation.points.map(\.position),
                observations: observations, relative: priors.relative, gravity: priors.gravity,
                anchors: priors.anchors, huber: adjustment.huber)
            if firstRMS == nil { firstRMS = Self.rmsPixels(problem, frames) }
            let result = problem.solve(maxIterations: adjustment.iterations)
            // The reprojections say nothing of scale; only the odometry does, and its step priors hold
            // it loosely (steps of centimetres, each uncertain by millimetres): on simulated scans the
            // adjusted map came out up to 3 % too small or large. The whole trajectory knows it better:
            // the adjusted centres are scaled about the first frame until their similarity fit to the
            // input centres has scale 1.
            let scale = Self.odometryScale(
                adjusted: problem.poses, input: input.map(\.camFromMap), breaks: Self.breaks(problem))
            let origin = problem.poses[0].center
            for i in frames.indices { frames[i].camFromMap = Self.scaled(problem.poses[i], by: scale, about: origin) }
            summary.rounds += 1
            summary.iterations += result.iterations
            summary.observations = observations.count
            summary.finalRMS = Self.rmsPixels(problem, frames)
        }
        summary.initialRMS = firstRMS ?? 0
        var total = 0.0
        for (a, b) in zip(input, frames) {
            let moved = a.camFromMap.center.distance(to: b.camFromMap.center)
            let turned = degrees(
                Quaternion(b.camFromMap.rotation * a.camFromMap.rotation.transposed).rotationVector.norm)
            total += moved
            summary.maxCorrection = max(summary.maxCorrection, moved)
            summary.maxRotationCorrectionDegrees = max(summary.maxRotationCorrectionDegrees, turned)
        }
        summary.meanCorrection = total / Double(input.count)
    }

    /// The priors of the input poses: consecutive frames, gravity of every frame, the first frame.
    static func priors(
        _ frames: [MappingFrame], _ o: PoseAdjustmentOptions
    ) -> (
        relative: [BundleAdjustment.RelativePrior], gravity: [BundleAdjustment.GravityPrior],
        anchors: [BundleAdjustment.AnchorPrior]
    ) {
        var relative: [BundleAdjustment.RelativePrior] = []
        for b in frames.indices.dropFirst() {
            let a = b - 1
            let ca = frames[a].camFromMap, cb = frames[b].camFromMap
            let sigma = o.relativeTranslationSigma + o.relativeTranslationDrift * ca.center.distance(to: cb.center)
            relative.append(
                .init(
                    a: a, b: b, camBFromCamA: EpipolarCheck.relativePose(ca, cb), translationWeight: 1 / sigma,
                    rotationWeight: 1 / radians(o.relativeRotationSigmaDegrees)))
        }
        let gravity = frames.indices.map { i in
            BundleAdjustment.GravityPrior(
                frame: i, upInCamera: frames[i].camFromMap.rotation * Vec3(0, 1, 0),
                weight: 1 / radians(o.gravitySigmaDegrees))
        }
        // The anchor is tight: it only removes the gauge freedom (the map frame is the first frame's).
        let anchor = BundleAdjustment.AnchorPrior(
            frame: 0, camFromMap: frames[0].camFromMap, translationWeight: 1e4, rotationWeight: 1e5)
        return (relative, gravity, [anchor])
    }

    /// The frames that start a new odometry segment: their relative prior to the previous frame is
    /// beyond the robust threshold after the adjustment (a relocalization jump of the AR session).
    static func breaks(_ problem: BundleAdjustment) -> Set<Int> {
        var out = Set<Int>()
        for p in problem.relative {
            let r = BundleAdjustment.relativeResidual(p, problem.poses[p.a], problem.poses[p.b])
            if r.reduce(0, { $0 + $1 * $1 }).squareRoot() > BundleAdjustment.relativeHuber { out.insert(p.b) }
        }
        return out
    }

    /// The factor that makes the adjusted trajectory as large as the input one: 1 / the scale of
    /// the similarity that best maps the adjusted centres onto the input centres, fitted per
    /// odometry segment (split at `breaks`) and averaged weighted by each segment's spread; 1 when
    /// no segment gives a fit (a scan that never moved).
    static func odometryScale(adjusted: [CameraPose], input: [CameraPose], breaks: Set<Int>) -> Double {
        var weighted = 0.0, weights = 0.0
        var start = 0
        for end in 1...adjusted.count where end == adjusted.count || breaks.contains(end) {
            defer { start = end }
            guard end - start >= 3 else { continue }
            let a = adjusted[start..<end].map(\.center), b = input[start..<end].map(\.center)
            guard let fit = alignSimilarity(source: a, target: b), fit.scale.isFinite, fit.scale > 0.5, fit.scale < 2
            else { continue }
            let mean = a.reduce(Vec3.zero, +) / Double(a.count)
            let spread = a.reduce(0) { $0 + ($1 - mean).squaredNorm }
            weighted += spread * fit.scale
            weights += spread
        }
        return weights > 0 ? weighted / weights : 1
    }

    /// `pose` with its centre scaled by `factor` about `origin` (orientation kept).
    static func scaled(_ pose: CameraPose, by factor: Double, about origin: Vec3) -> CameraPose {
        let centre = origin + (pose.center - origin) * factor
        return CameraPose(rotation: pose.rotation, translation: -(pose.rotation * centre))
    }

    /// RMS reprojection error of the problem's observations, pixels (each frame's mean focal).
    static func rmsPixels(_ problem: BundleAdjustment, _ frames: [MappingFrame]) -> Double {
        var sum = 0.0
        var count = 0
        for o in problem.observations {
            let p = problem.poses[o.frame].transform(problem.points[o.point])
            guard p.z > 0 else { continue }
            let e = (Vec2(p.x / p.z, p.y / p.z) - o.normalized).norm * frames[o.frame].camera.meanFocal
            sum += e * e
            count += 1
        }
        return count > 0 ? (sum / Double(count)).squareRoot() : 0
    }
}

/// What `MapBuilder`'s pose adjustment did, kept in the map's build funnel.
public struct PoseAdjustmentSummary: Codable, Equatable, Sendable {
    /// Rounds (triangulate, adjust) and Levenberg–Marquardt iterations over all of them.
    public var rounds = 0
    public var iterations = 0
    /// Observations in the last round.
    public var observations = 0
    /// RMS reprojection error before the first round and after the last, pixels.
    public var initialRMS = 0.0
    public var finalRMS = 0.0
    /// How far the adjustment moved the frames' centres (mean and largest, metres) and turned them
    /// (largest, degrees).
    public var meanCorrection = 0.0
    public var maxCorrection = 0.0
    public var maxRotationCorrectionDegrees = 0.0

    /// An empty summary.
    public init() {}
}
