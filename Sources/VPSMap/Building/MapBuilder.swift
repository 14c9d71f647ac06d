import Dispatch
import Foundation
import VPSFeatures
import VPSGeometry
import VPSImaging

/// One posed image for map building.
public struct MappingFrame: Sendable {
    /// Unique name (capture frame id or COLMAP image name).
    public var name: String
    /// Intrinsics of the image.
    public var camera: Camera
    /// `camFromMap`, computer-vision camera, right-handed +Y-up map frame, metres.
    public var camFromMap: CameraPose

    /// Builds a frame.
    public init(name: String, camera: Camera, camFromMap: CameraPose) {
        self.name = name
        self.camera = camera
        self.camFromMap = camFromMap
    }
}

/// Builds a localization map from posed images with known intrinsics. Surveyed poses are trusted;
/// poses from AR odometry are adjusted with the points when `MapBuildOptions.poseAdjustment` is set.
/// Each stage is its own type, and all report into one `MapBuildFunnel`:
///
/// 1. `MapFeatures`: features per frame (in parallel, deterministic), undistorted per frame.
/// 2. `PairSelection`: pairs by measured overlap (epipolar-consistent matches of the strongest
///    features among pose-compatible candidates), scale-free.
/// 3. `PairMatching`: full ratio + mutual matching of each pair, verified against the known epipolar
///    geometry, merged into tracks (`TrackBuilder`).
/// 3a. `ObservationAlignment`: each track's observations aligned to its finest view's patch, which
///    the map keeps per point for queries.
/// 3b. `PoseAdjustment` (odometry poses only): bundle adjustment held to the odometry's relative
///    poses, gravity and first frame; pairs are then verified at its wider epipolar limit.
/// 4. `TrackTriangulation`: weighted multi-view triangulation with reprojection, depth, relative
///    uncertainty and angle filters.
/// 5. One representative descriptor per point (the track's medoid), the colour of its first view,
///    keyframes; a map that too few frames see enough of is refused (`MapBuildError.tooThin`).
///
/// - Complexity: O(frames × (candidatesPerFrame × overlapFeatures² + neighborsPerFrame × features²))
///   descriptor distances; memory linear in frames. With pose adjustment, plus per iteration
///   O((6 × frames)³ / 6) for the pose system (`BundleAdjustment`): seconds for a few hundred frames.
public enum MapBuilder {
    /// Builds a map.
    ///
    /// - Parameters:
    ///   - frames: posed frames.
    ///   - loadImage: decodes frame `i`'s image.
    ///   - featureCache: features of frames (by name) extracted by earlier builds, reused and filled
    ///     (evaluations that build many maps of one image set).
    ///   - progress: called with (stage, fraction done).
    public static func build(
        frames: [MappingFrame], loadImage: @Sendable (Int) throws -> RGBImage, code: String, name: String,
        options: MapBuildOptions = MapBuildOptions(), featureCache: MapFeatureCache? = nil,
        progress: (String, Double) -> Void = { _, _ in }
    ) throws(MapBuildError) -> (MapData, MapBuildReport) {
        guard !frames.isEmpty else { throw .noFrames }
        var report = MapBuildReport()
        report.frames = frames.count
        var clock = DispatchTime.now().uptimeNanoseconds
        func lap(_ stage: String) {
            let now = DispatchTime.now().uptimeNanoseconds
            report.seconds[stage] = Double(now - clock) / 1e9
            clock = now
            progress(stage, 1)
        }

        var features = try MapFeatures(
            frames: frames, config: options.featureConfig, loadImage: loadImage, cache: featureCache)
        report.keypoints = features.keypointCount
        lap("features")

        // Odometry poses drift: pairs are verified at the adjustment's wider epipolar limit, and the
        // adjusted poses face the strict limits in the final triangulation.
        var matchOptions = options
        if let adjustment = options.poseAdjustment {
            matchOptions.epipolarThreshold = max(options.epipolarThreshold, adjustment.epipolarThreshold)
        }
        let selection = PairSelection(frames: frames, features: features, options: matchOptions)
        report.sceneScale = selection.sceneScale
        report.pairsScored = selection.scored
        report.candidatePairs = selection.pairs.count
        lap("pairs")

        let matching = PairMatching(
            pairs: selection.pairs, frames: frames, features: features, options: matchOptions)
        report.matches = matching.matches
        report.verifiedMatches = matching.verifiedMatches
        report.tracks = matching.tracks.count
        report.inconsistentTracks = matching.inconsistentTracks
        report.refusedMatches = matching.refusedMatches
        lap("matching")

        let tracks = matching.tracks
        var trackPatches: [[UInt8]?] = Array(repeating: nil, count: tracks.count)
        if options.pointPatches || options.alignObservations {
            let alignment = try ObservationAlignment(
                tracks: tracks, frames: frames, features: &features, loadImage: loadImage,
                alignment: options.patchAlignment, move: options.alignObservations)
            trackPatches = alignment.patches
            if options.alignObservations {
                report.alignedObservations = alignment.aligned
                report.unalignedObservations = alignment.unaligned
            }
            lap("alignment")
        }

        var frames = frames
        if let adjustment = options.poseAdjustment {
            let adjusted = PoseAdjustment(
                tracks: tracks, frames: frames, features: features, options: options, adjustment: adjustment)
            frames = adjusted.frames
            report.adjustment = adjusted.summary
            lap("adjustment")
        }

        let triangulation = TrackTriangulation(
            tracks: tracks, frames: frames, features: features, options: options)
        report.droppedDegenerate = triangulation.droppedDegenerate
        report.droppedObservations = triangulation.droppedObservations
        report.droppedReprojection = triangulation.droppedReprojection
        report.droppedUncertainty = triangulation.droppedUncertainty
        report.droppedAngle = triangulation.droppedAngle
        report.droppedDepth = triangulation.droppedDepth
        lap("triangulation")

        let points = triangulation.points
        report.points = points.count
        report.meanTrackLength = Double(points.reduce(0) { $0 + $1.nodes.count }) / Double(max(1, points.count))
        let errors = triangulation.errors.sorted()
        report.medianReprojectionError = errors.isEmpty ? 0 : errors[errors.count / 2]
        var pointIndices: [[Int32]] = features.sets.map { [Int32](repeating: -1, count: $0.count) }
        var colors: [UInt8] = []
        var descriptorBytes: [UInt8] = []
        var patchBytes: [UInt8] = []
        let bytesPerDescriptor = options.featureConfig.descriptorKind == .binary256 ? 32 : 512
        for (index, point) in points.enumerated() {
            let first = point.nodes[0]
            colors += features.colors[first.image][(3 * first.keypoint)..<(3 * first.keypoint + 3)]
            descriptorBytes += medoidDescriptor(point.nodes, features.sets, bytesPerDescriptor)
            if options.pointPatches {
                patchBytes += trackPatches[point.track] ?? [UInt8](repeating: 0, count: PointPatch.count)
            }
            for n in point.nodes { pointIndices[n.image][n.keypoint] = Int32(index) }
        }
        report.coveredFrames =
            pointIndices.filter { indices in
                indices.reduce(0) { $0 + ($1 >= 0 ? 1 : 0) } >= options.minPointsPerFrame
            }.count
        guard points.count >= 10 else { throw .tooFewPoints(points.count) }
        guard Double(report.coveredFrames) >= options.minCoveredFrameShare * Double(frames.count) else {
            throw .tooThin(covered: report.coveredFrames, frames: frames.count, funnel: report.funnel)
        }

        let keyframes = frames.enumerated().map { i, f in
            Keyframe(
                id: UInt32(i), name: f.name, camera: f.camera, camFromMap: f.camFromMap.rigid,
                keypoints: features.sets[i].keypoints.map { $0.position },
                descriptors: allDescriptorBytes(features.sets[i]), pointIndices: pointIndices[i])
        }
        var map = MapData(
            code: code, name: name,
            featureConfig: FeatureConfigID(name: options.featureConfig.name, version: options.featureConfig.version),
            descriptorBytes: bytesPerDescriptor, positions: points.map(\.position), colors: colors,
            pointDescriptors: descriptorBytes, keyframes: keyframes)
        if options.pointPatches { map.pointPatches = patchBytes }
        map.buildFunnel = report.funnel
        return (map, report)
    }

    /// The descriptor of the track's medoid (least total distance to the others), as bytes.
    static func medoidDescriptor(_ nodes: [TrackBuilder.Node], _ features: [FeatureSet], _ bytes: Int) -> [UInt8] {
        switch features[nodes[0].image].descriptors {
        case .binary:
            let ds = nodes.map { features[$0.image].descriptors.binary![$0.keypoint] }
            var best = 0, bestSum = Int.max
            for a in ds.indices {
                var sum = 0
                for b in ds.indices where b != a { sum += BinaryDescriptors.distance(ds[a], ds[b]) }
                if sum < bestSum {
                    bestSum = sum
                    best = a
                }
            }
            return DescriptorBytes.bytes(ds[best])
        case .float(let f):
            _ = f
            let ds = nodes.map { n -> [Float] in
                let v = features[n.image].descriptors.float!
                return Array(v.values[(n.keypoint * v.dimension)..<((n.keypoint + 1) * v.dimension)])
            }
            var best = 0, bestSum = Float.infinity
            for a in ds.indices {
                var sum: Float = 0
                for b in ds.indices where b != a {
                    sum += zip(ds[a], ds[b]).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }
                }
                if sum < bestSum {
                    bestSum = sum
                    best = a
                }
            }
            return DescriptorBytes.bytes(ds[best])
        }
    }

    static func allDescriptorBytes(_ set: FeatureSet) -> [UInt8] {
        switch set.descriptors {
        case .binary(let b): return DescriptorBytes.bytes(words: b.words)
        case .float(let f): return DescriptorBytes.bytes(f.values)
        }
    }
}

/// Descriptor ↔ byte conversions used by the map file (little-endian).
public enum DescriptorBytes {
    /// Bytes of one binary descriptor.
    public static func bytes(_ d: SIMD4<UInt64>) -> [UInt8] { bytes(words: [d[0], d[1], d[2], d[3]]) }

    /// Bytes of packed words.
    public static func bytes(words: [UInt64]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(words.count * 8)
        for w in words { for b in 0..<8 { out.append(UInt8(truncatingIfNeeded: w >> (8 * UInt64(b)))) } }
        return out
    }

    /// Bytes of floats.
    public static func bytes(_ values: [Float]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(values.count * 4)
        for v in values { for b in 0..<4 { out.append(UInt8(truncatingIfNeeded: v.bitPattern >> (8 * UInt32(b)))) } }
        return out
    }
}
