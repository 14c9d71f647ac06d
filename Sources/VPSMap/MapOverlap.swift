import VPSFeatures
import VPSGeometry

/// Estimates where one map sits in another from their overlap, for building map sets.
///
/// Each keyframe of map A is localized in map B (its descriptors matched to B's points with the
/// ratio test, then P3P LO-RANSAC); every inlier whose A keypoint has an A point gives a 3D–3D
/// pair (A point, B point). A robust rigid alignment (RANSAC over triples, then least squares on
/// the inliers) over all pairs gives `bFromA`.
public enum MapOverlap {
    /// The outcome of `estimate`.
    public struct Result: Sendable {
        /// `bFromA`: maps A's frame into B's (right-handed map frames).
        public var bFromA: Rigid3
        /// Keyframes of A localized in B.
        public var localizedKeyframes: Int
        /// 3D–3D pairs, and those consistent with the result.
        public var pairs: Int
        public var inliers: Int
        /// Root-mean-square distance of the inlier pairs after alignment, metres.
        public var residualRMS: Double
    }

    /// Errors of `estimate`.
    public enum OverlapError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The maps use different feature configurations.
        case incompatibleFeatures(String, String)
        /// Too little overlap to align.
        case insufficientOverlap(pairs: Int)

        public var description: String {
            switch self {
            case .incompatibleFeatures(let a, let b): return "the maps use different features (\(a) and \(b))"
            case .insufficientOverlap(let n): return "the maps overlap too little to align (\(n) point pairs; need 20)"
            }
        }
    }

    /// Estimates `bFromA`.
    ///
    /// - Parameters:
    ///   - threshold: 3D inlier distance for the alignment, metres.
    ///   - seed: RANSAC seed.
    public static func estimate(
        _ a: MapData, in b: MapData, threshold: Double = 0.05, seed: UInt64 = 1
    ) throws(OverlapError) -> Result {
        guard a.featureConfig == b.featureConfig, a.descriptorBytes == 32, b.descriptorBytes == 32 else {
            throw .incompatibleFeatures(a.featureConfig.description, b.featureConfig.description)
        }
        let bPoints = BinaryDescriptors(bytes: b.pointDescriptors)
        var source: [Vec3] = []
        var target: [Vec3] = []
        var localized = 0
        for k in a.keyframes where !k.keypoints.isEmpty {
            let matches = BruteForceMatcher.match(
                BinaryDescriptors(bytes: k.descriptors), bPoints, criteria: MatchCriteria(ratio: 0.8))
            guard matches.count >= 12 else { continue }
            let pixels = matches.map {
                Vec2(Double(k.keypoints[Int($0.query)].x), Double(k.keypoints[Int($0.query)].y))
            }
            let points = matches.map { b.positions[Int($0.train)] }
            var options = AbsolutePoseOptions()
            options.ransac.seed = seed &+ UInt64(k.id)
            let result = estimateAbsolutePose(pixels: pixels, points: points, camera: k.camera, options: options)
            guard result.camFromWorld != nil, result.inlierCount >= 20 else { continue }
            localized += 1
            for (m, match) in matches.enumerated() where result.inliers[m] {
                let pa = k.pointIndices[Int(match.query)]
                guard pa >= 0 else { continue }
                source.append(a.positions[Int(pa)])
                target.append(b.positions[Int(match.train)])
            }
        }
        guard source.count >= 20 else { throw .insufficientOverlap(pairs: source.count) }
        var options = RansacOptions(threshold: threshold)
        options.seed = seed
        let ransac = Ransac.run(RigidAlignmentEstimator(source: source, target: target), options: options)
        guard let model = ransac.model, ransac.stats.inlierCount >= 20 else {
            throw .insufficientOverlap(pairs: source.count)
        }
        // Final least squares on the inliers.
        let inl = (0..<source.count).filter { ransac.inliers[$0] }
        let bFromA = alignRigid(source: inl.map { source[$0] }, target: inl.map { target[$0] }) ?? model
        let sq = inl.map { (bFromA.transform(source[$0]) - target[$0]).squaredNorm }
        let rms = (sq.reduce(0, +) / Double(max(1, sq.count))).squareRoot()
        return Result(
            bFromA: bFromA, localizedKeyframes: localized, pairs: source.count, inliers: inl.count, residualRMS: rms)
    }
}
