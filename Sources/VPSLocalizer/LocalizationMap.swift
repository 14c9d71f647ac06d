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
    /// Point descriptors in point order (ORB bits, or unit-normalized SIFT / RootSIFT floats).
    let descriptors: LocalDescriptors
    /// Retrieval codes in point order: the ORB descriptors themselves, or the float descriptors'
    /// `SignProjectionHash` codes (`hash`), searched by Hamming distance.
    let codes: BinaryDescriptors
    /// The hash behind `codes` for float maps (queries' codes must use the same); nil for ORB.
    let hash: SignProjectionHash?
    /// Approximate nearest-neighbour index over `codes` (nil for small maps: brute force).
    let index: MultiProbeLSHIndex?
    /// Keyframes observing each point: `pointKeyframes[pointKeyframeStart[p]..<pointKeyframeStart[p + 1]]`.
    let pointKeyframeStart: [Int32]
    let pointKeyframes: [Int32]
    /// Keyframe camera centres, map frame.
    let keyframeCenters: [Vec3]
    /// Per point, the mean unit direction from the point to the keyframes observing it (zero when
    /// none does): the side of a surface the point can be seen from.
    let viewDirections: [Vec3]
    /// Per point, the mean distance from the keyframes observing it (0 when none does): the scale
    /// its descriptor was seen at. A detector's pyramid spans a bounded range of scales, so a camera
    /// much nearer or farther cannot match it (`ProjectionMatching.visiblePoints`).
    let viewDistances: [Float]
    /// The points in runs of `PointBlock.size` with bounds, for visibility scans to skip runs whole.
    let pointBlocks: [PointBlock]
    /// Per point, the first-order covariance of its position (map units², row-major 3×3 as the
    /// upper triangle xx, xy, xz, yy, yz, zz) for the map's own observation noise
    /// (`observationSigma` on each keyframe observation); zero when fewer than two keyframes
    /// observe it. A point triangulated at a narrow angle is uncertain
    /// along its depth, which a query seeing it from aside meets as pixels of error.
    let pointCovariances: [SIMD8<Float>]
    /// The map's keypoint observations' noise per image axis, pixels (`ObservationNoise`).
    let observationSigma: Double

    /// Errors preparing a map.
    public enum PrepareError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The map's feature configuration is unknown to this build, or its descriptors do not
        /// have that configuration's size.
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
        guard let config = try? FeatureConfig(identifier: "\(data.featureConfig.name)-v\(data.featureConfig.version)"),
            data.descriptorBytes == (config.descriptorKind == .binary256 ? 32 : 4 * FloatDescriptors.siftDimension),
            data.pointDescriptors.count == data.descriptorBytes * data.pointCount
        else { throw .unsupportedFeatures(data.featureConfig.description) }
        self.data = data
        featureConfig = config
        switch config.descriptorKind {
        case .binary256:
            let binary = BinaryDescriptors(bytes: data.pointDescriptors)
            descriptors = .binary(binary)
            codes = binary
            hash = nil
        case .float128:
            let unit = LocalDescriptors.unitNormalized(Self.floats(data.pointDescriptors))
            let h = SignProjectionHash(centeredOn: unit)
            descriptors = .float(unit)
            codes = h.codes(unit)
            hash = h
        }
        index = data.pointCount >= indexThreshold ? MultiProbeLSHIndex(codes) : nil
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
        var distances = [Float](repeating: 0, count: data.pointCount)
        for p in 0..<data.pointCount {
            var sum = Vec3(0, 0, 0)
            var total = 0.0
            let observers = list[Int(counts[p])..<Int(counts[p + 1])]
            for k in observers {
                let ray = keyframeCenters[Int(k)] - data.positions[p]
                let n = ray.norm
                if n > 0 { sum = sum + ray * (1 / n) }
                total += n
            }
            distances[p] = observers.isEmpty ? 0 : Float(total / Double(observers.count))
            let n = sum.norm
            directions[p] = n > 0 ? sum * (1 / n) : sum
        }
        viewDirections = directions
        viewDistances = distances
        pointBlocks = PointBlock.blocks(
            positions: data.positions, viewDistances: distances, scaleRange: descriptors.limits.scaleRange)
        var covariances = [SIMD8<Float>](repeating: .zero, count: data.pointCount)
        let poses = data.keyframes.map { CameraPose($0.camFromMap) }
        let noise = ObservationNoise.sigma(of: data)
        observationSigma = noise
        let focals = data.keyframes.map { $0.camera.meanFocal }
        for p in 0..<data.pointCount {
            let observers = list[Int(counts[p])..<Int(counts[p + 1])]
            guard observers.count >= 2 else { continue }
            let obs = observers.map {
                TriangulationObservation(
                    camFromWorld: poses[Int($0)], normalized: .zero, sigma: noise / focals[Int($0)])
            }
            guard let c = triangulationCovariance(data.positions[p], obs), c.isFinite else { continue }
            covariances[p] = SIMD8(
                Float(c[0, 0]), Float(c[0, 1]), Float(c[0, 2]), Float(c[1, 1]), Float(c[1, 2]), Float(c[2, 2]), 0, 0)
        }
        pointCovariances = covariances
    }

    /// Approximate `k` nearest map points by retrieval code: a third of the LSH tables (brute force
    /// on small maps).
    func nearestByCode(_ queries: BinaryDescriptors, k: Int = 2) -> NearestNeighbors {
        if let index { return index.nearest(queries, k: k, tables: 4) }
        if k > 2 { return BruteForceMatcher.nearest(queries, in: codes, k: k) }
        return HammingNearestTwo.nearest(queries, in: codes)
    }

    /// The retrieval codes of query descriptors of this map's family.
    func codes(of queries: LocalDescriptors) -> BinaryDescriptors {
        switch queries {
        case .binary(let b): return b
        case .float(let f): return hash?.codes(f) ?? BinaryDescriptors()
        }
    }

    /// Indices of the keyframes observing map point `p`.
    func keyframes(observing p: Int) -> ArraySlice<Int32> {
        pointKeyframes[Int(pointKeyframeStart[p])..<Int(pointKeyframeStart[p + 1])]
    }

    /// Float descriptors from their little-endian bytes (the map file's layout).
    static func floats(_ bytes: [UInt8]) -> FloatDescriptors {
        let values = bytes.withUnsafeBytes { raw in
            (0..<(bytes.count / 4)).map {
                Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self)))
            }
        }
        return FloatDescriptors(values: values)
    }
}

extension LocalizationMap {
    /// Whether a camera at `center` (map frame) could match point `p`'s descriptor: on the side of
    /// its surface the map saw it from (the ray within `acos(minCos)` of the mean viewing direction)
    /// and at a distance within the descriptors' scale range of the distance the map saw it from.
    /// Points no keyframe observes pass.
    func canBeSeen(_ p: Int, from center: Vec3, minCos: Double) -> Bool {
        let ray = center - data.positions[p]
        let n = ray.norm
        guard n > 0 else { return false }
        let view = viewDirections[p]
        let unseen = view.x == 0 && view.y == 0 && view.z == 0
        guard unseen || view.dot(ray) >= minCos * n else { return false }
        let seenAt = Double(viewDistances[p]), range = descriptors.limits.scaleRange
        return seenAt == 0 || (n <= range * seenAt && n * range >= seenAt)
    }
}
