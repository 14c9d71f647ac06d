// Least-squares similarity and rigid alignment of corresponding 3-D point sets.
//
// Implements S. Umeyama, "Least-squares estimation of transformation parameters between two point patterns",
// IEEE TPAMI 13(4):376–380, 1991: with weighted centroids `μx`, `μy`, source variance
// `σx² = Σ wᵢ |xᵢ − μx|²` and cross-covariance `Σ = Σ wᵢ (yᵢ − μy)(xᵢ − μx)ᵀ` (weights summing to one), take the
// SVD `Σ = U D Vᵀ` and `S = diag(1, 1, sign(det U · det V))`; then `R = U S Vᵀ`, `c = tr(D S) / σx²` and
// `t = μy − c R μx` minimise `Σ wᵢ |yᵢ − (c R xᵢ + t)|²` over proper rotations (eq. 40–42). The `S` term keeps
// `R` a rotation when the best orthogonal fit would be a reflection (mirrored or very noisy data).

/// The relative size below which the second singular value of the cross-covariance marks the input as degenerate
/// (all points coincident or on one line in either set), where the rotation about that line is undetermined.
let alignmentDegeneracyThreshold = 1e-9

/// The centred statistics shared by `alignSimilarity` and `alignRigid`.
private struct AlignmentMoments {
    /// Weighted centroid of the source points.
    var sourceMean: Vec3
    /// Weighted centroid of the target points.
    var targetMean: Vec3
    /// Weighted variance of the source points about their centroid (`σx²`).
    var sourceVariance: Double
    /// Optimal rotation `R = U S Vᵀ`.
    var rotation: Mat3
    /// `tr(D S)`: the correlation captured by `rotation`.
    var correlation: Double

    /// Computes the moments and the optimal rotation, or nil for invalid or degenerate input.
    init?(source: [Vec3], target: [Vec3], weights: [Double]?) {
        let count = source.count
        guard count >= 3, target.count == count, weights.map({ $0.count == count }) ?? true else { return nil }
        var normalizedWeights = weights ?? [Double](repeating: 1, count: count)
        var weightSum = 0.0
        for w in normalizedWeights {
            guard w.isFinite, w >= 0 else { return nil }
            weightSum += w
        }
        guard weightSum > 0, weightSum.isFinite else { return nil }
        for i in 0..<count { normalizedWeights[i] /= weightSum }

        var sourceMean = Vec3.zero
        var targetMean = Vec3.zero
        for i in 0..<count {
            guard source[i].isFinite, target[i].isFinite else { return nil }
            sourceMean += normalizedWeights[i] * source[i]
            targetMean += normalizedWeights[i] * target[i]
        }
        var sourceVariance = 0.0
        var covariance = Mat3.zero
        for i in 0..<count {
            let x = source[i] - sourceMean
            let y = target[i] - targetMean
            sourceVariance += normalizedWeights[i] * x.squaredNorm
            covariance = covariance + normalizedWeights[i] * Mat3.outer(y, x)
        }
        guard sourceVariance > 0, sourceVariance.isFinite, covariance.isFinite else { return nil }

        let svd = SVD3(covariance)
        let singular = svd.singularValues
        guard singular.x > 0, singular.y > alignmentDegeneracyThreshold * singular.x else { return nil }
        let reflect = svd.u.determinant * svd.v.determinant < 0
        let signs = Vec3(1, 1, reflect ? -1 : 1)
        let rotation = svd.u * Mat3.diagonal(signs) * svd.v.transposed
        guard rotation.isFinite else { return nil }

        self.sourceMean = sourceMean
        self.targetMean = targetMean
        self.sourceVariance = sourceVariance
        self.rotation = rotation
        correlation = singular.dot(signs)
    }
}

/// Estimates the similarity `targetFromSource` that best maps `source` onto `target` in the least-squares sense
/// (Umeyama 1991).
///
/// The result minimises `Σ wᵢ |targetᵢ − (s R sourceᵢ + t)|²` with `s > 0` and `R` a proper rotation. With exact
/// data it recovers the generating similarity to rounding error.
///
/// - Parameters:
///   - source: points in the source frame.
///   - target: the corresponding points in the target frame, same count and order.
///   - weights: optional non-negative weights, one per pair (any positive scale); nil weighs all pairs equally.
/// - Returns: the similarity, or nil when there are fewer than 3 pairs, the counts differ, any value is not finite,
///   a weight is negative, the weights sum to zero, or either set is degenerate (coincident or collinear points,
///   counting only pairs of positive weight).
/// - Complexity: O(n).
public func alignSimilarity(source: [Vec3], target: [Vec3], weights: [Double]? = nil) -> Sim3? {
    guard let moments = AlignmentMoments(source: source, target: target, weights: weights) else { return nil }
    let scale = moments.correlation / moments.sourceVariance
    guard scale > 0, scale.isFinite else { return nil }
    let translation = moments.targetMean - scale * (moments.rotation * moments.sourceMean)
    guard translation.isFinite else { return nil }
    return Sim3(scale: scale, rotation: Quaternion(moments.rotation), translation: translation)
}

/// Estimates the rigid transform `targetFromSource` that best maps `source` onto `target` in the least-squares
/// sense (Umeyama 1991 with the scale fixed to 1).
///
/// The result minimises `Σ wᵢ |targetᵢ − (R sourceᵢ + t)|²` with `R` a proper rotation.
///
/// - Parameters:
///   - source: points in the source frame.
///   - target: the corresponding points in the target frame, same count and order.
///   - weights: optional non-negative weights, one per pair (any positive scale); nil weighs all pairs equally.
/// - Returns: the rigid transform, or nil under the same conditions as `alignSimilarity`.
/// - Complexity: O(n).
public func alignRigid(source: [Vec3], target: [Vec3], weights: [Double]? = nil) -> Rigid3? {
    guard let moments = AlignmentMoments(source: source, target: target, weights: weights) else { return nil }
    let translation = moments.targetMean - moments.rotation * moments.sourceMean
    guard translation.isFinite else { return nil }
    return Rigid3(rotationMatrix: moments.rotation, translation: translation)
}

/// The (weighted) root-mean-square distance between `target` and the mapped `source` points.
///
/// - Parameters:
///   - transform: `targetFromSource`.
///   - source: points in the source frame.
///   - target: the corresponding points in the target frame.
///   - weights: optional non-negative weights; nil weighs all pairs equally.
/// - Returns: `√(Σ wᵢ |targetᵢ − transform(sourceᵢ)|² / Σ wᵢ)` in the target's units, or nil when the sets are
///   empty, the counts differ, or the weights are invalid (negative, non-finite, or summing to zero).
public func alignmentResidualRMS(
    _ transform: Sim3, source: [Vec3], target: [Vec3], weights: [Double]? = nil
) -> Double? {
    residualRMS(source: source, target: target, weights: weights) { transform.transform($0) }
}

/// The (weighted) root-mean-square distance between `target` and the mapped `source` points.
///
/// - Parameters:
///   - transform: `targetFromSource`.
///   - source: points in the source frame.
///   - target: the corresponding points in the target frame.
///   - weights: optional non-negative weights; nil weighs all pairs equally.
/// - Returns: the RMS distance, or nil under the same conditions as the `Sim3` overload.
public func alignmentResidualRMS(
    _ transform: Rigid3, source: [Vec3], target: [Vec3], weights: [Double]? = nil
) -> Double? {
    residualRMS(source: source, target: target, weights: weights) { transform.transform($0) }
}

/// Shared body of the `alignmentResidualRMS` overloads.
private func residualRMS(source: [Vec3], target: [Vec3], weights: [Double]?, map: (Vec3) -> Vec3) -> Double? {
    let count = source.count
    guard count > 0, target.count == count, weights.map({ $0.count == count }) ?? true else { return nil }
    var sum = 0.0
    var weightSum = 0.0
    for i in 0..<count {
        let w = weights?[i] ?? 1
        guard w.isFinite, w >= 0 else { return nil }
        sum += w * (target[i] - map(source[i])).squaredNorm
        weightSum += w
    }
    guard weightSum > 0 else { return nil }
    return (sum / weightSum).squareRoot()
}
