import VPSFeatures
import VPSGeometry
import VPSMap

/// A map prepared for queries: its point descriptors in a search index. Immutable and shared
/// read-only between concurrent queries.
public final class LocalizationMap: Sendable {
    /// The map.
    public let data: MapData
    /// The feature configuration queries must be extracted with.
    public let featureConfig: FeatureConfig
    /// Point descriptors (ORB) in point order.
    let descriptors: BinaryDescriptors
    /// Approximate nearest-neighbour index over `descriptors` (nil for small maps: brute force).
    let index: MultiProbeLSHIndex?
    /// Keyframes observing each point: `pointKeyframes[pointKeyframeStart[p]..<pointKeyframeStart[p + 1]]`.
    let pointKeyframeStart: [Int32]
    let pointKeyframes: [Int32]
    /// Keyframe camera centres, map frame.
    let keyframeCenters: [Vec3]
    /// Per point, the mean unit direction from the point to the keyframes observing it (zero when
    /// none does): the side of a surface the point can be seen from.
    let viewDirections: [Vec3]

    /// Errors preparing a map.
    public enum PrepareError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The map's feature configuration is unknown to this build or not binary.
        case unsupportedFeatures(String)

        public var description: String {
            switch self {
            case .unsupportedFeatures(let f): return "map features \(f) are not supported by this localizer"
            }
        }
    }

    /// Prepares `data`; maps of at least `indexThreshold` points get an LSH index (same matches as brute
    /// force on the synthetic room, 17 ms instead of 82 ms per query).
    public init(_ data: MapData, indexThreshold: Int = 2_000) throws(PrepareError) {
        guard data.descriptorBytes == 32,
            let config = try? FeatureConfig(identifier: "\(data.featureConfig.name)-v\(data.featureConfig.version)")
        else { throw .unsupportedFeatures(data.featureConfig.description) }
        self.data = data
        featureConfig = config
        descriptors = BinaryDescriptors(bytes: data.pointDescriptors)
        index = data.pointCount >= indexThreshold ? MultiProbeLSHIndex(descriptors) : nil
        var counts = [Int32](repeating: 0, count: data.pointCount + 1)
        for kf in data.keyframes {
            for p in kf.pointIndices where p >= 0 && Int(p) < data.pointCount { counts[Int(p) + 1] += 1 }
        }
        for p in 0..<data.pointCount { counts[p + 1] += counts[p] }
        var fill = counts
        var list = [Int32](repeating: 0, count: Int(counts[data.pointCount]))
        for (k, kf) in data.keyframes.enumerated() {
            for p in kf.pointIndices where p >= 0 && Int(p) < data.pointCount {
                list[Int(fill[Int(p)])] = Int32(k)
                fill[Int(p)] += 1
            }
        }
        pointKeyframeStart = counts
        pointKeyframes = list
        keyframeCenters = data.keyframes.map(\.camFromMap.center)
        var directions = [Vec3](repeating: Vec3(0, 0, 0), count: data.pointCount)
        for p in 0..<data.pointCount {
            var sum = Vec3(0, 0, 0)
            for k in list[Int(counts[p])..<Int(counts[p + 1])] {
                let ray = keyframeCenters[Int(k)] - data.positions[p]
                let n = ray.norm
                if n > 0 { sum = sum + ray * (1 / n) }
            }
            let n = sum.norm
            directions[p] = n > 0 ? sum * (1 / n) : sum
        }
        viewDirections = directions
    }

    /// Approximate two nearest map points for retrieval votes: a third of the LSH tables (brute force on
    /// small maps).
    func nearestForVotes(_ queries: BinaryDescriptors) -> NearestNeighbors {
        if let index { return index.nearest(queries, k: 2, tables: 4) }
        return HammingNearestTwo.nearest(queries, in: descriptors)
    }

    /// Indices of the keyframes observing map point `p`.
    func keyframes(observing p: Int) -> ArraySlice<Int32> {
        pointKeyframes[Int(pointKeyframeStart[p])..<Int(pointKeyframeStart[p + 1])]
    }

    /// Two nearest map points per query descriptor (for the ratio test).
    public func nearest(_ queries: BinaryDescriptors) -> NearestNeighbors {
        if let index { return index.nearest(queries, k: 2) }
        return BruteForceMatcher.nearest(queries, in: descriptors, k: 2)
    }
}
