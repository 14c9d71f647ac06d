import VPSGeometry

/// The last step of a pose estimate: a refit on the correspondences the pose explains within a
/// tight, scale-aware threshold, and the first-order uncertainty of the result.
///
/// RANSAC's threshold (6 px) must admit coarse-level keypoints; near a degenerate configuration
/// (most points on one distant plane) a few wrong matches inside it can tilt the pose by degrees.
/// Refitting on matches within `tightPixels × σᵢ` (σᵢ the keypoint's pyramid scale) with a 1 px
/// Huber loss removes their pull, and the covariance says how well the survivors pin the pose down.
struct PoseTightening {
    /// The refitted pose.
    var pose: CameraPose
    /// Correspondences within the tight threshold.
    var inliers: [Bool]
    var inlierCount: Int
    /// First-order standard deviation of the camera centre (metres, root of the covariance trace)
    /// and of the rotation (degrees), for 1 px keypoint noise at the finest scale.
    var positionSigma: Double
    var rotationSigmaDegrees: Double

    init(
        pose start: CameraPose, pixels: [Vec2], points: [Vec3], sigmas: [Double], camera: Camera,
        tightPixels: Double = 3
    ) {
        let focal = camera.meanFocal
        let observations = pixels.map {
            camera.normalized(fromPixel: $0) ?? Vec2(($0.x - camera.cx) / camera.fx, ($0.y - camera.cy) / camera.fy)
        }
        let inverseSigmas = sigmas.map { 1 / max($0, 1e-3) }
        var pose = start
        var selected: [Int] = []
        for _ in 0..<2 {
            selected = points.indices.filter { i in
                let c = pose.transform(points[i])
                guard c.z > 1e-9 else { return false }
                let r = Vec2(c.x / c.z, c.y / c.z) - observations[i]
                return r.norm * focal < tightPixels * sigmas[i]
            }
            guard selected.count >= 6 else { break }
            refinePose(
                &pose, points: points, observations: observations, indices: selected, inverseSigmas: inverseSigmas,
                options: PoseRefinementOptions(loss: .huber(1 / focal), maxIterations: 30))
        }
        self.pose = pose
        var flags = [Bool](repeating: false, count: points.count)
        for i in selected { flags[i] = true }
        inliers = flags
        inlierCount = selected.count
        // Covariance: (JᵀWJ)⁻¹ σ², σ = 1 px in normalized units.
        let info = reprojectionInformation(
            pose: pose, points: points, observations: observations, indices: selected, inverseSigmas: inverseSigmas)
        guard let cov = Self.invert6(info) else {
            positionSigma = .infinity
            rotationSigmaDegrees = .infinity
            return
        }
        let s2 = 1 / (focal * focal)
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
            for c in 0..<3 {
                row[c] = a[r, c]
                row[3 + c] = b[r, c]
            }
            for i in 0..<6 { for j in 0..<6 { trace += row[i] * cov[i * 6 + j] * row[j] } }
        }
        positionSigma = (max(0, trace) * s2).squareRoot()
        rotationSigmaDegrees = (max(0, cov[0] + cov[7] + cov[14]) * s2).squareRoot() * 180 / .pi
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
