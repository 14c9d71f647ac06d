/// Corresponding 3D points in two frames: the `RansacEstimator` behind robust rigid alignment
/// (`targetFromSource`), for example of two maps of the same place.
///
/// Minimal sample: three pairs, solved with `alignRigid` (Umeyama); error: squared distance of
/// the transformed source point from its target point; local optimisation: `alignRigid` on the
/// inliers.
public struct RigidAlignmentEstimator: RansacEstimator {
    /// Points in the source frame.
    public let source: [Vec3]
    /// Matching points in the target frame.
    public let target: [Vec3]

    /// Builds the estimator; the arrays must have equal counts.
    public init(source: [Vec3], target: [Vec3]) {
        precondition(source.count == target.count, "one target point per source point")
        self.source = source
        self.target = target
    }

    public var sampleSize: Int { 3 }
    public var dataCount: Int { source.count }
    public var solveCostInEvaluations: Double { 60 }

    public func solveMinimal(sample: [Int], into models: inout [Rigid3]) {
        if let t = alignRigid(source: sample.map { source[$0] }, target: sample.map { target[$0] }) { models.append(t) }
    }

    public func squaredError(_ model: Rigid3, at index: Int) -> Double {
        (model.transform(source[index]) - target[index]).squaredNorm
    }

    public func refine(_ model: Rigid3, inliers: [Int], squaredThreshold: Double) -> Rigid3? {
        alignRigid(source: inliers.map { source[$0] }, target: inliers.map { target[$0] })
    }
}
