// Averages of rotations given as unit quaternions. Every function normalizes its inputs first (outside data,
// SPEC §15.4) and treats q and −q as the same rotation unless stated otherwise.

/// The weighted chordal L2 mean of rotations (Markley, Cheng, Crassidis and Oshman, "Averaging quaternions",
/// J. Guidance, Control, and Dynamics 30(4):1193–1197, 2007).
///
/// The result maximises `Σ wᵢ (qᵢ · q)²`, i.e. minimises the weighted sum of squared Frobenius (chordal) distances
/// `‖R(q) − R(qᵢ)‖²`; it is the unit eigenvector of the largest eigenvalue of the 4×4 matrix `Σ wᵢ qᵢ qᵢᵀ`. Since
/// `qᵢ qᵢᵀ` does not change when `qᵢ` is negated, the mean is independent of the signs of the inputs. Small
/// rotation spreads give practically the geodesic (Karcher) mean; one outlier still pulls it by about its weight
/// times its angle, so use `robustAverageRotations` when outliers are possible.
///
/// - Parameters:
///   - rotations: the rotations (any non-zero norm; normalized here).
///   - weights: optional non-negative weights, one per rotation; nil weighs them equally.
/// - Returns: the mean with `w ≥ 0`, or nil when there are no rotations, the counts differ, a value is not finite,
///   a quaternion is zero, a weight is negative, the weights sum to zero, or the mean is not unique (the two largest
///   eigenvalues agree to 1e-12 relative, e.g. two equally weighted rotations 180° apart).
/// - Complexity: O(n) plus one 4×4 eigen-decomposition.
public func averageRotations(_ rotations: [Quaternion], weights: [Double]? = nil) -> Quaternion? {
    let count = rotations.count
    guard count > 0, weights.map({ $0.count == count }) ?? true else { return nil }
    var m0 = Vec4.zero
    var m1 = Vec4.zero
    var m2 = Vec4.zero
    var m3 = Vec4.zero
    var weightSum = 0.0
    for i in 0..<count {
        let w = weights?[i] ?? 1
        let q = rotations[i]
        guard w.isFinite, w >= 0, q.isFinite, q.norm > 0 else { return nil }
        let c = q.normalized.components
        m0 += (w * c.x) * c
        m1 += (w * c.y) * c
        m2 += (w * c.z) * c
        m3 += (w * c.w) * c
        weightSum += w
    }
    guard weightSum > 0, weightSum.isFinite else { return nil }
    let eigen = SymmetricEigen4(rows: m0 / weightSum, m1 / weightSum, m2 / weightSum, m3 / weightSum)
    guard eigen.values.x - eigen.values.y > 1e-12 * eigen.values.x else { return nil }
    let v = eigen.vectors[0]
    let mean = Quaternion(x: v.x, y: v.y, z: v.z, w: v.w)
    guard mean.isFinite, mean.norm > 0 else { return nil }
    return mean.normalized.canonical
}

/// A robust average of rotations: the geodesic L1 mean (median) on SO(3), by the Weiszfeld algorithm of Hartley,
/// Aftab and Trumpf, "L1 rotation averaging using the Weiszfeld algorithm", CVPR 2011.
///
/// Minimises `Σ d(R, Rᵢ)` with `d` the rotation angle between two rotations. Starting from the chordal L2 mean,
/// each iteration maps the rotations to the tangent space at the estimate `S`, `vᵢ = log(S⁻¹ Rᵢ)`, and moves by
/// the Weiszfeld step `Δ = Σ (vᵢ / |vᵢ|) / Σ (1 / |vᵢ|)`, `S ← S exp(Δ)`. Rotations within 1e-12 rad of `S` are
/// left out of the sums, as in the paper, and the step is shortened by the Vardi–Zhang factor `1 − η/|Σ vᵢ/|vᵢ||`
/// for `η` such rotations (stopping when it is not positive), as in `geometricMedian(of:)`. The geodesic distance
/// is bi-invariant, so averaging the inverses gives the inverse of the average. Up to half of the rotations may
/// be outliers without dragging the result far from the consensus of the others.
///
/// - Parameters:
///   - rotations: the rotations (any non-zero norm; normalized here).
///   - iterations: the largest number of Weiszfeld steps; the loop also stops once a step is below 1e-12 rad.
/// - Returns: the median with `w ≥ 0`, or nil when `averageRotations` would return nil for the same input.
/// - Complexity: O(n) per iteration.
public func robustAverageRotations(_ rotations: [Quaternion], iterations: Int = 20) -> Quaternion? {
    guard var estimate = averageRotations(rotations) else { return nil }
    let unit = rotations.map(\.normalized)
    for _ in 0..<max(iterations, 0) {
        var direction = Vec3.zero
        var inverseAngleSum = 0.0
        var coincident = 0.0
        let inverse = estimate.conjugate
        for q in unit {
            let v = (inverse * q).rotationVector
            let angle = v.norm
            if angle <= 1e-12 {
                coincident += 1
            } else {
                direction += v / angle
                inverseAngleSum += 1 / angle
            }
        }
        guard inverseAngleSum > 0 else { break }
        var step = direction / inverseAngleSum
        if coincident > 0 {
            // Vardi–Zhang: the estimate sits on input rotations; stay if they outweigh the pull of the others.
            let pull = direction.norm
            if pull <= coincident { break }
            step *= 1 - coincident / pull
        }
        guard step.isFinite else { break }
        estimate = (estimate * Quaternion(rotationVector: step)).normalized
        if step.norm < 1e-12 { break }
    }
    return estimate.canonical
}

/// The normalized mean of quaternions each flipped into the hemisphere of `reference`.
///
/// Every `q` with `q · reference < 0` is replaced by `−q`, the (normalized) quaternions are summed and the sum is
/// normalized. This is the SDK rule "rotation = normalized mean of the window quaternions aligned to the newest
/// one's hemisphere" (pass the newest as `reference`). It matches `averageRotations` to second order in the spread
/// and is cheaper, but unlike it depends on the choice of reference when the spread approaches 180°.
///
/// - Parameters:
///   - reference: the quaternion whose hemisphere (sign) the others are aligned to; usually also one of `qs`.
///   - qs: the quaternions to average.
/// - Returns: the unit mean; `reference` (normalized) when `qs` is empty or its aligned sum is zero or not finite.
///   Zero or non-finite quaternions in `qs` are skipped.
/// - Complexity: O(n).
public func meanQuaternionAligned(to reference: Quaternion, _ qs: [Quaternion]) -> Quaternion {
    let ref = reference.normalized
    var sum = Quaternion(x: 0, y: 0, z: 0, w: 0)
    for q in qs {
        let norm = q.norm
        guard norm > 0, norm.isFinite else { continue }
        let sign = q.dot(ref) < 0 ? -1 / norm : 1 / norm
        sum = Quaternion(x: sum.x + sign * q.x, y: sum.y + sign * q.y, z: sum.z + sign * q.z, w: sum.w + sign * q.w)
    }
    let norm = sum.norm
    guard norm > 0, norm.isFinite else { return ref }
    return Quaternion(x: sum.x / norm, y: sum.y / norm, z: sum.z / norm, w: sum.w / norm)
}
