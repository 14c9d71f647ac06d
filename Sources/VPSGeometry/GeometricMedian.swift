/// The geometric median of a point set: the point minimising the sum of Euclidean distances to the points.
///
/// Weiszfeld's algorithm (E. Weiszfeld, "Sur le point pour lequel la somme des distances de n points donnés est
/// minimum", Tôhoku Math. J. 43:355–386, 1937) from the centroid, with the modification of Y. Vardi and C.-H.
/// Zhang, "The multivariate L1-median and associated data depth", PNAS 97(4):1423–1426, 2000, so that an iterate
/// landing on a data point neither divides by zero nor sticks there when that point is not the median. Unlike
/// the mean, the median has a breakdown point of 50 %: one far outlier moves it by a bounded amount however far
/// away it is. For two points (or any collinear even set) every point between the middle two is a median; the
/// one reached from the centroid is returned.
///
/// - Parameters:
///   - points: the data, metres.
///   - maxIterations: the largest number of Weiszfeld steps.
///   - tolerance: stop once a step moves the estimate by less than this, metres.
/// - Returns: the median estimate, or nil when `points` is empty or holds a non-finite value.
/// - Complexity: O(n) per iteration; convergence is linear, slower when the median is a data point.
public func geometricMedian(of points: [Vec3], maxIterations: Int = 50, tolerance: Double = 1e-3) -> Vec3? {
    guard !points.isEmpty, points.allSatisfy(\.isFinite) else { return nil }
    var centroid = Vec3.zero
    for p in points { centroid += p }
    centroid /= Double(points.count)
    return weiszfeldMedian(of: points, start: centroid, maxIterations: maxIterations, tolerance: tolerance)
}

/// Weiszfeld iterations with the Vardi–Zhang step from an explicit starting point.
///
/// One step from `y`, with `η` the number of data points at `y` and the sums over the others
/// (`dᵢ = |xᵢ − y|`): `T(y) = Σ xᵢ/dᵢ / Σ 1/dᵢ` and `r = |Σ (xᵢ − y)/dᵢ|`. Then `y ← T(y)` when `η = 0`, otherwise
/// `y ← max(0, 1 − η/r) T(y) + min(1, η/r) y`; when `r ≤ η` the data point `y` is itself the median.
///
/// - Parameters:
///   - points: the data (finite, non-empty).
///   - start: the first iterate.
///   - maxIterations: the largest number of steps.
///   - tolerance: stop once a step is shorter than this.
/// - Returns: the last iterate.
func weiszfeldMedian(of points: [Vec3], start: Vec3, maxIterations: Int, tolerance: Double) -> Vec3 {
    guard points.count > 1 else { return points.first ?? start }
    // Distances below this count as "at a data point" (relative to the size of the coordinates).
    let scale = points.reduce(0.0) { max($0, $1.x.magnitude, $1.y.magnitude, $1.z.magnitude) }
    let coincidence = 1e-12 * max(scale, 1)
    var current = start
    for _ in 0..<max(maxIterations, 0) {
        var weightedSum = Vec3.zero
        var inverseDistanceSum = 0.0
        var pull = Vec3.zero
        var coincident = 0.0
        for p in points {
            let offset = p - current
            let distance = offset.norm
            if distance <= coincidence {
                coincident += 1
            } else {
                weightedSum += p / distance
                inverseDistanceSum += 1 / distance
                pull += offset / distance
            }
        }
        guard inverseDistanceSum > 0 else { break }  // every point sits at the iterate
        let weiszfeld = weightedSum / inverseDistanceSum
        var next = weiszfeld
        if coincident > 0 {
            let pullNorm = pull.norm
            if pullNorm <= coincident { break }  // the data point is the median
            let ratio = coincident / pullNorm
            next = (1 - ratio) * weiszfeld + ratio * current
        }
        guard next.isFinite else { break }
        let step = next.distance(to: current)
        current = next
        if step < tolerance { break }
    }
    return current
}
