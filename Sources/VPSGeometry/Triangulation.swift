/// One observation of a point for triangulation: the camera's `camFromWorld` and the point's
/// normalized image coordinates `(x/z, y/z)` in that camera.
public struct TriangulationObservation: Sendable {
    /// The observing camera's pose.
    public var camFromWorld: CameraPose
    /// Normalized (undistorted) image coordinates.
    public var normalized: Vec2
    /// Standard deviation of the observation in normalized units (1 by default: unweighted).
    public var sigma: Double

    /// Builds an observation.
    public init(camFromWorld: CameraPose, normalized: Vec2, sigma: Double = 1) {
        self.camFromWorld = camFromWorld
        self.normalized = normalized
        self.sigma = sigma
    }
}

/// The 3×3 covariance of a triangulated point from its observations' standard deviations
/// (first-order: `(Jᵀ Σ⁻¹ J)⁻¹`), or nil when the geometry is degenerate.
public func triangulationCovariance(_ point: Vec3, _ observations: [TriangulationObservation]) -> Mat3? {
    var info = Mat3.zero
    for o in observations {
        let p = o.camFromWorld.transform(point)
        guard p.z > 1e-9 else { return nil }
        let iz = 1 / p.z
        let rt = o.camFromWorld.rotation.transposed
        let ja = rt * Vec3(iz, 0, -p.x * iz * iz)
        let jb = rt * Vec3(0, iz, -p.y * iz * iz)
        let w = 1 / (o.sigma * o.sigma)
        info = info + w * (Mat3.outer(ja, ja) + Mat3.outer(jb, jb))
    }
    return info.inverse
}

/// Triangulates a point seen by two or more cameras with known poses.
///
/// Linear step: each observation contributes the two rows of `[x]× P X = 0` (homogeneous DLT,
/// Hartley & Zisserman §12.2), each row normalized and weighted by 1/σ; the solution is the
/// eigenvector of the smallest eigenvalue of `AᵀA` (4×4). Non-linear step: Gauss–Newton on the
/// reprojection errors (weighted by 1/σ²) in normalized coordinates with the poses fixed.
///
/// - Returns: the world point, or nil when the system is degenerate (fewer than two views, the
///   point at infinity, or behind a camera).
/// - Complexity: O(views) per iteration.
public func triangulatePoint(_ observations: [TriangulationObservation], refineIterations: Int = 5) -> Vec3? {
    guard observations.count >= 2 else { return nil }
    var a = [[Double]](repeating: [Double](repeating: 0, count: 4), count: 4)
    for o in observations {
        let r = o.camFromWorld.rotation, t = o.camFromWorld.translation
        let p0 = Vec4(r.r0.x, r.r0.y, r.r0.z, t.x)
        let p1 = Vec4(r.r1.x, r.r1.y, r.r1.z, t.y)
        let p2 = Vec4(r.r2.x, r.r2.y, r.r2.z, t.z)
        for row in [o.normalized.x * p2 - p0, o.normalized.y * p2 - p1] {
            let n = (row * row).sum().squareRoot()
            guard n > 0 else { continue }
            let u = row / (n * o.sigma)
            for i in 0..<4 { for j in 0..<4 { a[i][j] += u[i] * u[j] } }
        }
    }
    let eig = SymmetricEigen4(
        rows: Vec4(a[0][0], a[0][1], a[0][2], a[0][3]), Vec4(a[1][0], a[1][1], a[1][2], a[1][3]),
        Vec4(a[2][0], a[2][1], a[2][2], a[2][3]), Vec4(a[3][0], a[3][1], a[3][2], a[3][3]))
    let h = eig.vectors[3]
    guard abs(h.w) > 1e-12 else { return nil }
    var x = Vec3(h.x, h.y, h.z) / h.w
    guard x.isFinite else { return nil }
    // Gauss–Newton with fixed poses.
    for _ in 0..<refineIterations {
        var jtj = Mat3.zero
        var jtr = Vec3.zero
        for o in observations {
            let p = o.camFromWorld.transform(x)
            guard p.z > 1e-9 else { return nil }
            let iz = 1 / p.z
            let r = Vec2(p.x * iz - o.normalized.x, p.y * iz - o.normalized.y)
            let rot = o.camFromWorld.rotation
            // d(π)/dX = dπ/dp · R, weighted by 1/σ².
            let ja = rot.transposed * Vec3(iz, 0, -p.x * iz * iz)
            let jb = rot.transposed * Vec3(0, iz, -p.y * iz * iz)
            let w = 1 / (o.sigma * o.sigma)
            jtj = jtj + w * (Mat3.outer(ja, ja) + Mat3.outer(jb, jb))
            jtr += w * (ja * r.x + jb * r.y)
        }
        guard let inv = jtj.inverse else { break }
        let step = inv * jtr
        x -= step
        if step.norm < 1e-12 * max(1, x.norm) { break }
    }
    for o in observations where o.camFromWorld.transform(x).z <= 0 { return nil }
    return x.isFinite ? x : nil
}

/// The largest angle (radians) between the viewing rays of a point from the given camera centres.
public func maximumTriangulationAngle(point: Vec3, centers: [Vec3]) -> Double {
    var best = 0.0
    for i in 0..<centers.count {
        for j in (i + 1)..<centers.count {
            best = max(best, (point - centers[i]).angle(to: point - centers[j]))
        }
    }
    return best
}
