import VPSGeometry

/// The offset that a set of fixes agrees on (SPEC §9.5 steps 4 and 5).
enum OffsetConsensus {
    /// Weiszfeld iterations of the translation median.
    static let medianIterations = 50
    /// Stop the median once a step is shorter than this, metres.
    static let medianTolerance = 1e-3

    /// The consensus of `offsets` (`worldFromMap`, oldest first): translation = geometric median of the
    /// translations (≤ 50 Weiszfeld iterations, 1 mm tolerance), rotation = normalized mean of the quaternions
    /// each aligned to the hemisphere of the newest one.
    ///
    /// - Returns: the consensus, or nil for an empty list.
    static func offset(of offsets: [Rigid3]) -> Rigid3? {
        guard let newest = offsets.last else { return nil }
        let translation =
            geometricMedian(
                of: offsets.map(\.translation), maxIterations: medianIterations, tolerance: medianTolerance)
            ?? newest.translation
        var sum = Quaternion(x: 0, y: 0, z: 0, w: 0)
        for offset in offsets {
            let q = offset.rotation
            let sign: Double = q.dot(newest.rotation) < 0 ? -1 : 1
            sum = Quaternion(x: sum.x + sign * q.x, y: sum.y + sign * q.y, z: sum.z + sign * q.z, w: sum.w + sign * q.w)
        }
        let rotation = sum.norm > 1e-9 ? sum.normalized : newest.rotation
        return Rigid3(rotation: rotation, translation: translation)
    }
}
