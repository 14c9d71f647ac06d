import VPSGeometry

/// A run of consecutive map points with bounds that let a visibility scan
/// (`ProjectionMatching.visiblePoints`) pass over all of them at once when none could pass.
///
/// Map points are stored as they were triangulated, keyframe after keyframe, so a run of
/// consecutive points is mostly one neighbourhood: from a camera in one room of a large venue most
/// runs lie behind it or farther than their descriptors can be matched from, and their points need
/// not be projected one by one. The tests are conservative (with a margin for rounding): a point a
/// run's bounds skip is one the point-by-point test rejects, so a scan returns the same points, in the
/// same order.
struct PointBlock: Sendable {
    /// Points per block.
    static let size = 64

    /// The points, by index.
    let range: Range<Int>
    /// Centre and radius (map units) of a sphere holding every point of the block.
    let center: Vec3
    let radius: Double
    /// The farthest a camera can be from a point of the block and still match its descriptor: the
    /// largest `scaleRange` × the distance the map saw a point from; infinite when some point has no
    /// such distance (no keyframe observes it).
    let reach: Double

    /// Builds blocks of `size` consecutive points over `positions`.
    /// - Parameters:
    ///   - viewDistances: per point, the mean distance it was seen from (0: not observed).
    ///   - scaleRange: the descriptors' scale range (`DescriptorLimits.scaleRange`).
    /// - Complexity: O(points).
    static func blocks(positions: [Vec3], viewDistances: [Float], scaleRange: Double) -> [PointBlock] {
        stride(from: 0, to: positions.count, by: size).map { start in
            let range = start..<min(start + size, positions.count)
            // Bounds over the finite points: a point with a non-finite position is never visible.
            let finite = range.filter { positions[$0].isFinite }
            guard let first = finite.first else {
                return PointBlock(range: range, center: .zero, radius: 0, reach: .infinity)
            }
            var low = positions[first], high = positions[first]
            var reach = 0.0
            for p in finite {
                low = pointwiseMin(low, positions[p])
                high = pointwiseMax(high, positions[p])
                let seenAt = Double(viewDistances[p])
                reach = seenAt > 0 && seenAt.isFinite && reach.isFinite ? max(reach, scaleRange * seenAt) : .infinity
            }
            let center = 0.5 * (low + high)
            var radius = 0.0
            for p in finite { radius = max(radius, positions[p].distance(to: center)) }
            return PointBlock(range: range, center: center, radius: radius, reach: reach)
        }
    }

    /// True when no point of the block can pass `visiblePoints`' tests for a camera `camFromMap`
    /// (centre `cameraCenter`): every point at depth ≤ `nearestDepth`, or every point farther from the
    /// camera than it can be matched from. False whenever in doubt.
    @inline(__always) func isHidden(from camFromMap: CameraPose, cameraCenter: Vec3, nearestDepth: Double) -> Bool {
        guard radius.isFinite, center.isFinite else { return false }
        let c = camFromMap.transform(center)
        // Rounding in the point-by-point transform and distance: far below a nanometre per metre.
        let slack = 1e-9 * (1 + c.norm + center.norm + radius)
        if c.z + radius + slack <= nearestDepth { return true }
        return cameraCenter.distance(to: center) - radius - slack > reach
    }
}
