import VPSGeometry

/// How far a rig's tracking poses may be off relative to frame 0 (an AR session's drift): the
/// standard deviations of frame k's pose relative to frame 0's, growing with their distance.
///
/// Frame k's correspondences are then noisier than their keypoints by the pixels that drift moves
/// them (`PoseTightening`), so a rig spread over metres of a drifting session cannot pull frame 0's
/// answer further than its own tracking is good for, and exact relative poses (a calibrated rig, a
/// model's poses) use every frame fully.
public struct TrackingDrift: Sendable, Equatable {
    /// Position error per metre between the frames (ARKit-class visual-inertial odometry: ~1 %).
    public var positionFraction: Double
    /// Position error however close the frames are, metres.
    public var positionFloor: Double
    /// Rotation error per metre between the frames, degrees.
    public var degreesPerMeter: Double
    /// Rotation error however close the frames are, degrees.
    public var degreesFloor: Double

    /// A drift model.
    public init(positionFraction: Double, positionFloor: Double, degreesPerMeter: Double, degreesFloor: Double) {
        self.positionFraction = positionFraction
        self.positionFloor = positionFloor
        self.degreesPerMeter = degreesPerMeter
        self.degreesFloor = degreesFloor
    }

    /// A phone's visual-inertial tracking over a few seconds: 1 % of the distance + 2 mm, 0.1° per
    /// metre + 0.05°.
    public static let visualInertial = TrackingDrift(
        positionFraction: 0.01, positionFloor: 0.002, degreesPerMeter: 0.1, degreesFloor: 0.05)
    /// Exact relative poses (a calibrated rig, the poses of a reconstruction).
    public static let none = TrackingDrift(positionFraction: 0, positionFloor: 0, degreesPerMeter: 0, degreesFloor: 0)

    /// Standard deviations (metres, radians) of a frame `distance` metres from frame 0.
    func sigmas(distance: Double) -> (position: Double, rotation: Double) {
        (positionFloor + positionFraction * distance, (degreesFloor + degreesPerMeter * distance) * .pi / 180)
    }
}

/// Stage 6 of a query: a refit on the correspondences the pose explains within a tight,
/// scale-aware threshold, and the first-order uncertainty of the result.
///
/// RANSAC's threshold (6 px) must admit coarse-level keypoints; near a degenerate configuration
/// (most points on one distant plane) a few wrong matches inside it can tilt the pose by degrees.
/// Refitting on matches within `tightPixels` standard deviations of their residual's 2×2 covariance
/// (`PixelCovariance`: the keypoint's pyramid scale, its map point's uncertainty) with a 1 px Huber
/// loss removes their pull, and the covariance says how well the survivors pin the pose down.
///
/// In a rig, frame k ≠ 0 carries its tracking drift (`TrackingDrift`): the pixels δₖ that the drift
/// moves its points by (f·σ_position / depth + f·σ_rotation). Drift is one offset per frame, not
/// noise per point, so the frame's observations are weighted as if each had variance
/// σᵢ² + nₖ·δₖ² (nₖ its tight correspondences): together they count at most as one observation of
/// precision δₖ. The answer is frame 0's pose, whose own correspondences are used at full weight.
struct PoseTightening {
    /// The refitted `firstFromMap`.
    var pose: CameraPose
    /// Correspondences within the tight threshold.
    var inliers: [Bool]
    var inlierCount: Int
    /// First-order standard deviation of frame 0's camera centre (metres, root of the covariance
    /// trace) and rotation (degrees), for the noise the tight correspondences' residuals show
    /// (`noiseScale` × the modelled noise: 1 px at the finest scale, plus drift and map points).
    var positionSigma: Double
    var rotationSigmaDegrees: Double
    /// The a-posteriori noise factor s₀ (the variance factor of a least-squares adjustment; Förstner
    /// & Wrobel, "Photogrammetric Computer Vision", 2016, ch. 4): the root of the weighted residuals' sum of squares over their redundancy,
    /// shrunk towards 1 by `noisePriorRedundancy` observations at the modelled noise, so that a
    /// handful of correspondences cannot shrink the uncertainty. Real and simulated queries have
    /// s₀ ≈ 0.4–0.9 (keypoints and map points are better than the 1 px the weights assume); scaled
    /// by it, the errors' median is about one σ (`docs/EVALUATION.md`).
    var noiseScale = 1.0
    /// Redundancy the prior s₀ = 1 counts as.
    static let noisePriorRedundancy = 20.0
    /// Tight inliers a rig frame needs for its correspondences to count in the pose's σ (the pose
    /// itself uses every frame): fewer can be chance matches the pose was turned to fit.
    static let minConfirmingInliers = 15

    /// - Parameter map: the map whose point uncertainties add to the keypoints' (nil: keypoints only).
    init(
        pose start: CameraPose, correspondences c: Correspondences, query: QueryFeatures, map: LocalizationMap?,
        weightByScale: Bool,
        drift: TrackingDrift = .visualInertial, tightPixels: Double = 3, widePixels: Double = 6
    ) {
        let frames = query.frames
        let focal = frames[0].camera.meanFocal
        let observations = c.pixels.indices.map { i -> Vec2 in
            let camera = frames[c.frames[i]].camera
            let px = c.pixels[i]
            // Normalized coordinates in units of frame 0's focal length, so one loss scale fits all.
            return camera.normalized(fromPixel: px)
                ?? Vec2((px.x - camera.cx) / camera.fx, (px.y - camera.cy) / camera.fy)
        }
        // Per correspondence, the covariance of its residual in its frame's pixels: the keypoint's
        // own noise (1 px at the finest scale), plus — from a map — the point's uncertainty seen from
        // the query (first order, for the map's own observation noise, `ObservationNoise`). A point
        // triangulated at a narrow angle is uncertain along its depth, which the query sees as a short
        // segment in the image: the residual is weighted by its full 2×2 covariance, so the point
        // still counts across it.
        let keypointSigmas = weightByScale ? c.sigmas : c.sigmas.map { _ in 1 }
        var covariances = keypointSigmas.map { PixelCovariance(isotropic: $0 * $0) }
        if let map {
            for i in c.points.indices {
                let k = c.frames[i]
                let cam = query.camFromMap(k, start)
                let pc = cam.transform(c.points[i])
                guard pc.z > 1e-9 else { continue }
                let cv = map.pointCovariances[Int(c.pointIndices[i])]
                let sx = Mat3(
                    rows: Vec3(Double(cv[0]), Double(cv[1]), Double(cv[2])),
                    Vec3(Double(cv[1]), Double(cv[3]), Double(cv[4])),
                    Vec3(Double(cv[2]), Double(cv[4]), Double(cv[5])))
                let iz = 1 / pc.z
                let rt = cam.rotation.transposed
                let ja = rt * Vec3(iz, 0, -pc.x * iz * iz)
                let jb = rt * Vec3(0, iz, -pc.y * iz * iz)
                let f2 = frames[k].camera.meanFocal * frames[k].camera.meanFocal
                covariances[i].xx += ja.dot(sx * ja) * f2
                covariances[i].xy += ja.dot(sx * jb) * f2
                covariances[i].yy += jb.dot(sx * jb) * f2
            }
        }
        let camFromFirst = frames.map(\.camFromFirst)
        var pose = start
        var selected: [Int] = []
        // The residuals' weights in frame 0's pixels (observations are normalized coordinates).
        var whitening = covariances.indices.map { i in
            covariances[i].whitening(scale: focal / frames[c.frames[i]].camera.meanFocal)
        }
        // A rig's joint pose is the frames' compromise; frame 0's own pose may lie a few pixels from
        // it, so a rig first refits on everything within RANSAC's threshold (`widePixels`), frames
        // weighted by their drift, before the tight passes.
        let thresholds = frames.count == 1 ? [tightPixels, tightPixels] : [widePixels, tightPixels, tightPixels]
        for threshold in thresholds {
            // Drift in pixels per frame at this pose: from the median depth of its correspondences.
            let driftPixels = Self.driftPixels(pose: pose, c: c, query: query, drift: drift)
            selected = c.points.indices.filter { i in
                let k = c.frames[i]
                let p = camFromFirst[k].transform(pose.transform(c.points[i]))
                guard p.z > 1e-9 else { return false }
                let r = (Vec2(p.x / p.z, p.y / p.z) - observations[i]) * frames[k].camera.meanFocal
                let limit = covariances[i].adding(driftPixels[k] * driftPixels[k]).whitening(scale: 1)
                return limit.squaredNorm(r) < threshold * threshold
            }
            guard selected.count >= 6 else { break }
            var perFrame = [Int](repeating: 0, count: frames.count)
            for i in selected { perFrame[c.frames[i]] += 1 }
            whitening = c.sigmas.indices.map { i in
                let k = c.frames[i]
                let d = driftPixels[k]
                return covariances[i].adding(Double(perFrame[k]) * d * d)
                    .whitening(scale: focal / frames[k].camera.meanFocal)
            }
            if frames.count == 1 {
                refinePose(
                    &pose, points: c.points, observations: observations, indices: selected, whitening: whitening,
                    options: PoseRefinementOptions(loss: .huber(1 / focal), maxIterations: 30))
            } else {
                refineGeneralizedPose(
                    &pose, points: c.points, observations: observations, cameraIndices: c.frames,
                    camFromRig: camFromFirst, indices: selected, whitening: whitening,
                    options: PoseRefinementOptions(
                        loss: .huber((threshold > tightPixels ? 2 : 1) / focal), maxIterations: 30))
            }
        }
        self.pose = pose
        var flags = [Bool](repeating: false, count: c.count)
        for i in selected { flags[i] = true }
        inliers = flags
        inlierCount = selected.count
        // A rig's σ rests on the frames whose correspondences confirm the pose themselves. A frame
        // with a handful of tight inliers far from where the others see the map is a lever: the pose
        // can turn about the well-seen region to fit a few chance matches there, and those matches
        // then pin the turn down as if they were real (a rig 0.6 m and 5.8° off at σ 49 mm / 0.26°).
        var perFrameTight = [Int](repeating: 0, count: frames.count)
        for i in selected { perFrameTight[c.frames[i]] += 1 }
        let confirmed = selected.filter { perFrameTight[c.frames[$0]] >= Self.minConfirmingInliers }
        let informative = confirmed.count >= 6 ? confirmed : selected
        // Covariance: (JᵀWJ)⁻¹ σ², σ = 1 px in normalized units.
        let info =
            frames.count == 1
            ? reprojectionInformation(
                pose: pose, points: c.points, observations: observations, indices: selected, whitening: whitening)
            : reprojectionInformation(
                rigFromWorld: pose, points: c.points, observations: observations, cameraIndices: c.frames,
                camFromRig: camFromFirst, indices: informative, whitening: whitening)
        guard selected.count >= 6, let cov = Self.invert6(info) else {
            positionSigma = .infinity
            rotationSigmaDegrees = .infinity
            return
        }
        noiseScale = Self.noiseScale(
            pose: pose, points: c.points, observations: observations, indices: selected,
            whitening: whitening, focal: focal, camFromFirst: camFromFirst, frames: c.frames)
        let s2 = noiseScale * noiseScale / (focal * focal)
        // Centre c = −Rᵀt: dc = −Rᵀ[t]× ω − Rᵀ δt.
        let rt = pose.rotation.transposed
        let t = pose.translation
        let tx = Mat3(rows: Vec3(0, -t.z, t.y), Vec3(t.z, 0, -t.x), Vec3(-t.y, t.x, 0))
        let a = -1.0 * (rt * tx)
        let b = -1.0 * rt
        // J = [A B] (3×6); Σc = J Σ Jᵀ; only its trace is needed.
        var trace = 0.0
        for r in 0..<3 {
            var row = [Double](repeating: 0, count: 6)
            for col in 0..<3 {
                row[col] = a[r, col]
                row[3 + col] = b[r, col]
            }
            for i in 0..<6 { for j in 0..<6 { trace += row[i] * cov[i * 6 + j] * row[j] } }
        }
        positionSigma = (max(0, trace) * s2).squareRoot()
        rotationSigmaDegrees = (max(0, cov[0] + cov[7] + cov[14]) * s2).squareRoot() * 180 / .pi
    }

    /// s₀ (`noiseScale`): √((Σ ‖Wᵢ rᵢ‖² f² + ν₀) / (2n − 6 + ν₀)), rᵢ the residual of correspondence i
    /// in normalized units (seen by frame `frames[i]`), Wᵢ its `whitening` (per pixel of frame 0,
    /// focal f), ν₀ = `noisePriorRedundancy`.
    static func noiseScale(
        pose: CameraPose, points: [Vec3], observations: [Vec2], indices: [Int], whitening: [ObservationWhitening],
        focal: Double, camFromFirst: [CameraPose], frames: [Int]
    ) -> Double {
        var sum = 0.0
        for i in indices {
            let p = camFromFirst[frames[i]].transform(pose.transform(points[i]))
            guard p.z > 1e-9 else { continue }
            sum += whitening[i].squaredNorm(Vec2(p.x / p.z, p.y / p.z) - observations[i]) * focal * focal
        }
        let redundancy = Double(max(0, 2 * indices.count - 6))
        return ((sum + noisePriorRedundancy) / (redundancy + noisePriorRedundancy)).squareRoot()
    }

    /// Per frame, the pixels its tracking drift moves its points by (0 for frame 0).
    static func driftPixels(
        pose: CameraPose, c: Correspondences, query: QueryFeatures, drift: TrackingDrift
    ) -> [Double] {
        let frames = query.frames
        guard frames.count > 1 else { return [0] }
        var depths = [[Double]](repeating: [], count: frames.count)
        for i in c.points.indices {
            let k = c.frames[i]
            let z = frames[k].camFromFirst.transform(pose.transform(c.points[i])).z
            if z > 0 { depths[k].append(z) }
        }
        return frames.indices.map { k in
            guard k > 0 else { return 0 }
            let distance = frames[k].camFromFirst.center.norm
            let (position, rotation) = drift.sigmas(distance: distance)
            let sorted = depths[k].sorted()
            let depth = sorted.isEmpty ? 1 : max(sorted[sorted.count / 2], 1e-3)
            return frames[k].camera.meanFocal * (position / depth + rotation)
        }
    }

    /// Inverse of a symmetric positive-definite 6×6 matrix (Gauss–Jordan with partial pivoting).
    static func invert6(_ m: [Double]) -> [Double]? {
        var a = m
        var inv = [Double](repeating: 0, count: 36)
        for i in 0..<6 { inv[i * 7] = 1 }
        for col in 0..<6 {
            var pivot = col
            for r in (col + 1)..<6 where abs(a[r * 6 + col]) > abs(a[pivot * 6 + col]) { pivot = r }
            guard abs(a[pivot * 6 + col]) > 1e-300 else { return nil }
            if pivot != col {
                for k in 0..<6 {
                    a.swapAt(col * 6 + k, pivot * 6 + k)
                    inv.swapAt(col * 6 + k, pivot * 6 + k)
                }
            }
            let d = a[col * 6 + col]
            for k in 0..<6 {
                a[col * 6 + k] /= d
                inv[col * 6 + k] /= d
            }
            for r in 0..<6 where r != col {
                let f = a[r * 6 + col]
                if f == 0 { continue }
                for k in 0..<6 {
                    a[r * 6 + k] -= f * a[col * 6 + k]
                    inv[r * 6 + k] -= f * inv[col * 6 + k]
                }
            }
        }
        return inv
    }
}
