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

/// Options of `MapBuilder.build`.
public struct MapBuildOptions: Sendable {
    /// The local features of the map (queries must use the same).
    public var featureConfig: FeatureConfig = .orb2000
    /// Candidate partners per frame, nearest first by centre distance and view angle.
    public var neighborsPerFrame = 10
    /// Candidate partners must have centres within this distance (metres) ...
    public var maxPairDistance = 6.0
    /// ... and optical axes within this angle (degrees).
    public var maxPairAngle = 75.0
    /// Lowe's ratio for pairwise matching.
    public var ratio: Float = 0.8
    /// Sampson distance limit against the known relative pose, pixels.
    public var epipolarThreshold = 2.0
    /// Reprojection limit for keeping an observation in a track, pixels.
    public var reprojectionThreshold = 2.0
    /// Minimum triangulation angle, degrees.
    public var minTriangulationAngle = 2.0
    /// Points farther than this from every observing camera are dropped, metres.
    public var maxDepth = 40.0
    /// Standard deviation of a keypoint at the finest scale, pixels (FAST corners sit on whole
    /// pixels); coarser pyramid levels scale it by the keypoint's size.
    public var keypointSigma = 0.5
    /// Re-triangulate each point's inlier views weighted by their keypoint scales (a fine-level
    /// keypoint is several times more precise than one found at a coarse pyramid level).
    public var weightedTriangulation = true
    /// Points whose predicted position uncertainty (largest standard deviation from the
    /// observation geometry) exceeds this are dropped, metres.
    public var maxPointSigma = 0.02

    /// Defaults.
    public init() {}
}

/// Figures of a map build.
public struct MapBuildReport: Sendable, CustomStringConvertible {
    public var frames = 0
    public var pairs = 0
    public var verifiedMatches = 0
    public var tracks = 0
    public var inconsistentTracks = 0
    public var points = 0
    public var meanTrackLength = 0.0
    public var medianReprojectionError = 0.0
    public var seconds: [String: Double] = [:]

    public var description: String {
        let t = seconds.sorted { $0.key < $1.key }.map { "\($0.key) \(String(format: "%.1f", $0.value)) s" }.joined(
            separator: ", ")
        return "\(frames) frames, \(pairs) pairs, \(verifiedMatches) verified matches, \(points) points "
            + "(mean track \(String(format: "%.2f", meanTrackLength)), median reprojection \(String(format: "%.2f", medianReprojectionError)) px); \(t)"
    }
}

/// Errors of map building.
public enum MapBuildError: Error, Sendable, CustomStringConvertible {
    case noFrames
    case captures(String)
    case image(String)
    case features(String)
    case tooFewPoints(Int)

    /// Stable code.
    public var code: String {
        switch self {
        case .noFrames: return "MAP_BUILD_NO_FRAMES"
        case .captures: return "MAP_BUILD_INVALID_CAPTURES"
        case .image: return "MAP_BUILD_IMAGE"
        case .features: return "MAP_BUILD_FEATURES"
        case .tooFewPoints: return "MAP_BUILD_TOO_FEW_POINTS"
        }
    }

    public var description: String {
        switch self {
        case .noFrames: return "no usable frames (every frame was skipped or the capture is empty)"
        case .captures(let m): return "invalid capture dataset: \(m)"
        case .image(let m): return "cannot read an image: \(m)"
        case .features(let m): return "feature extraction failed: \(m)"
        case .tooFewPoints(let n):
            return "only \(n) points could be triangulated; the captures need more overlap or texture"
        }
    }
}

/// Builds a localization map from posed images with known intrinsics (the poses are trusted:
/// no bundle adjustment of cameras).
///
/// 1. Extract features per frame (in parallel; results stored by frame, so the output is deterministic).
/// 2. Choose candidate pairs from pose proximity and view overlap (`neighborsPerFrame` per frame).
/// 3. Match pairs (ratio test) and keep matches within `epipolarThreshold` of the known epipolar geometry.
/// 4. Merge matches into tracks (`TrackBuilder`), triangulate each (`triangulatePoint`), drop
///    observations beyond `reprojectionThreshold`, points with too small an angle or behind a camera.
/// 5. Keep one representative descriptor per point (the track's medoid) and the colour of its first view.
///
/// - Complexity: O(frames × neighborsPerFrame × features²) for matching; memory linear in frames.
public enum MapBuilder {
    /// Builds a map.
    ///
    /// - Parameters:
    ///   - frames: posed frames.
    ///   - loadImage: decodes frame `i`'s image.
    ///   - progress: called with (stage, fraction done).
    public static func build(
        frames: [MappingFrame], loadImage: @Sendable (Int) throws -> RGBImage, code: String, name: String,
        options: MapBuildOptions = MapBuildOptions(), progress: (String, Double) -> Void = { _, _ in }
    ) throws(MapBuildError) -> (MapData, MapBuildReport) {
        guard !frames.isEmpty else { throw .noFrames }
        var report = MapBuildReport()
        report.frames = frames.count
        var clock = DispatchTime.now().uptimeNanoseconds
        func lap(_ stage: String) {
            let now = DispatchTime.now().uptimeNanoseconds
            report.seconds[stage] = Double(now - clock) / 1e9
            clock = now
        }

        // 1. Features, in parallel.
        let extractor = options.featureConfig.makeExtractor()
        let results = ResultsBox<(FeatureSet, [UInt8])>(count: frames.count)
        DispatchQueue.concurrentPerform(iterations: frames.count) { i in
            do {
                let rgb = try loadImage(i)
                let set = try extractor.extract(from: rgb.gray)
                var colors = [UInt8](repeating: 0, count: 3 * set.count)
                for (k, kp) in set.keypoints.enumerated() {
                    let x = min(rgb.width - 1, max(0, Int(kp.x))), y = min(rgb.height - 1, max(0, Int(kp.y)))
                    let o = 3 * (y * rgb.width + x)
                    colors[3 * k] = rgb.pixels[o]
                    colors[3 * k + 1] = rgb.pixels[o + 1]
                    colors[3 * k + 2] = rgb.pixels[o + 2]
                }
                results.set(i, .success((set, colors)))
            } catch {
                results.set(i, .failure(error))
            }
        }
        var features: [FeatureSet] = []
        features.reserveCapacity(frames.count)
        var keypointColors: [[UInt8]] = []
        for i in 0..<frames.count {
            switch results.get(i) {
            case .success(let (set, colors)):
                features.append(set)
                keypointColors.append(colors)
            case .failure(let e as FeaturesError): throw .features("\(frames[i].name): \(e)")
            case .failure(let e): throw .image("\(frames[i].name): \(e)")
            case nil: throw .image("\(frames[i].name): not processed")
            }
        }
        progress("features", 1)
        lap("features")

        // Normalized coordinates of every keypoint.
        let normalized: [[Vec2]] = frames.indices.map { i in
            features[i].keypoints.map { kp in
                let px = Vec2(Double(kp.x), Double(kp.y))
                return frames[i].camera.normalized(fromPixel: px)
                    ?? Vec2(
                        (px.x - frames[i].camera.cx) / frames[i].camera.fx,
                        (px.y - frames[i].camera.cy) / frames[i].camera.fy)
            }
        }

        // 2. Candidate pairs.
        let pairs = candidatePairs(frames, options)
        report.pairs = pairs.count

        // 3. Matching with epipolar verification, in parallel over pairs.
        let frozen = features
        let matchResults = ResultsBox<[(Int, Int)]>(count: pairs.count)
        DispatchQueue.concurrentPerform(iterations: pairs.count) { p in
            let (i, j) = pairs[p]
            let matches =
                (try? BruteForceMatcher.match(
                    frozen[i], frozen[j], criteria: MatchCriteria(ratio: options.ratio, mutual: true))) ?? []
            let relative = relativePose(frames[i].camFromMap, frames[j].camFromMap)
            let e = Mat3.skew(relative.translation) * relative.rotation
            let focal = 0.5 * (frames[i].camera.meanFocal + frames[j].camera.meanFocal)
            let limit = options.epipolarThreshold / focal
            var kept: [(Int, Int)] = []
            for m in matches {
                let a = normalized[i][Int(m.query)], b = normalized[j][Int(m.train)]
                if sampsonDistance(e, Vec3(a.x, a.y, 1), Vec3(b.x, b.y, 1)) < limit {
                    kept.append((Int(m.query), Int(m.train)))
                }
            }
            matchResults.set(p, .success(kept))
        }
        var builder = TrackBuilder()
        for p in 0..<pairs.count {
            guard case .success(let kept) = matchResults.get(p) else { continue }
            report.verifiedMatches += kept.count
            for (a, b) in kept {
                builder.addMatch(.init(image: pairs[p].0, keypoint: a), .init(image: pairs[p].1, keypoint: b))
            }
        }
        progress("matching", 1)
        lap("matching")

        // 4. Tracks and triangulation.
        let (tracks, inconsistent) = builder.tracks(minLength: 2)
        report.tracks = tracks.count
        report.inconsistentTracks = inconsistent
        let centers = frames.map { $0.camFromMap.center }
        var positions: [Vec3] = []
        var colors: [UInt8] = []
        var descriptorBytes: [UInt8] = []
        var pointIndices: [[Int32]] = features.map { [Int32](repeating: -1, count: $0.count) }
        var errors: [Double] = []
        var lengthSum = 0
        let bytesPerDescriptor = options.featureConfig.descriptorKind == .binary256 ? 32 : 512
        // Per-keypoint standard deviation in normalized units, growing with the pyramid level.
        let referenceSize: Float = options.featureConfig.descriptorKind == .binary256 ? 31 : 1e9
        func sigma(_ n: TrackBuilder.Node) -> Double {
            let scale = max(1, Double(features[n.image].keypoints[n.keypoint].size / referenceSize))
            return options.keypointSigma * scale / frames[n.image].camera.meanFocal
        }
        for track in tracks {
            var nodes = track
            var point: Vec3?
            // Triangulate, drop the worst observation beyond the threshold, repeat.
            while nodes.count >= 2 {
                let obs = nodes.map {
                    TriangulationObservation(
                        camFromWorld: frames[$0.image].camFromMap, normalized: normalized[$0.image][$0.keypoint])
                }
                guard let x = triangulatePoint(obs) else {
                    point = nil
                    break
                }
                var worst = -1
                var worstError = 0.0
                for (k, n) in nodes.enumerated() {
                    let p = frames[n.image].camFromMap.transform(x)
                    let f = frames[n.image].camera.meanFocal
                    let err =
                        p.z > 0 ? (Vec2(p.x / p.z, p.y / p.z) - normalized[n.image][n.keypoint]).norm * f : .infinity
                    if err > worstError {
                        worstError = err
                        worst = k
                    }
                }
                if worstError <= options.reprojectionThreshold {
                    point = x
                    break
                }
                nodes.remove(at: worst)
            }
            guard let unweighted = point, nodes.count >= 2 else { continue }
            let obs = nodes.map {
                TriangulationObservation(
                    camFromWorld: frames[$0.image].camFromMap, normalized: normalized[$0.image][$0.keypoint],
                    sigma: sigma($0))
            }
            // The inlier views agree; the final estimate weights each by its keypoint's scale.
            let x =
                options.weightedTriangulation ? (triangulatePoint(obs, refineIterations: 10) ?? unweighted) : unweighted
            guard let cov = triangulationCovariance(x, obs),
                SymmetricEigen3(cov).values.x.squareRoot() <= options.maxPointSigma
            else {
                continue
            }
            let viewCenters = nodes.map { centers[$0.image] }
            guard degrees(maximumTriangulationAngle(point: x, centers: viewCenters)) >= options.minTriangulationAngle,
                viewCenters.allSatisfy({ $0.distance(to: x) <= options.maxDepth })
            else { continue }
            let index = Int32(positions.count)
            positions.append(x)
            let first = nodes[0]
            colors += keypointColors[first.image][(3 * first.keypoint)..<(3 * first.keypoint + 3)]
            descriptorBytes += medoidDescriptor(nodes, features, bytesPerDescriptor)
            for n in nodes {
                pointIndices[n.image][n.keypoint] = index
                let p = frames[n.image].camFromMap.transform(x)
                errors.append(
                    (Vec2(p.x / p.z, p.y / p.z) - normalized[n.image][n.keypoint]).norm
                        * frames[n.image].camera.meanFocal)
            }
            lengthSum += nodes.count
        }
        progress("triangulation", 1)
        lap("triangulation")
        guard positions.count >= 10 else { throw .tooFewPoints(positions.count) }
        report.points = positions.count
        report.meanTrackLength = Double(lengthSum) / Double(max(1, positions.count))
        errors.sort()
        report.medianReprojectionError = errors.isEmpty ? 0 : errors[errors.count / 2]

        // 5. Keyframes.
        var keyframes: [Keyframe] = []
        for (i, f) in frames.enumerated() {
            keyframes.append(
                Keyframe(
                    id: UInt32(i), name: f.name, camera: f.camera, camFromMap: f.camFromMap.rigid,
                    keypoints: features[i].keypoints.map { $0.position }, descriptors: allDescriptorBytes(features[i]),
                    pointIndices: pointIndices[i]))
        }
        let map = MapData(
            code: code, name: name,
            featureConfig: FeatureConfigID(name: options.featureConfig.name, version: options.featureConfig.version),
            descriptorBytes: bytesPerDescriptor, positions: positions, colors: colors,
            pointDescriptors: descriptorBytes,
            keyframes: keyframes)
        return (map, report)
    }

    /// Pairs (i < j) of frames whose centres are close and whose optical axes agree.
    static func candidatePairs(_ frames: [MappingFrame], _ options: MapBuildOptions) -> [(Int, Int)] {
        let centers = frames.map { $0.camFromMap.center }
        let axes = frames.map { $0.camFromMap.rotation.transposed * Vec3(0, 0, 1) }
        var chosen = Set<[Int]>()
        for i in frames.indices {
            var candidates: [(Double, Int)] = []
            for j in frames.indices where j != i {
                let d = centers[i].distance(to: centers[j])
                let angle = degrees(axes[i].angle(to: axes[j]))
                guard d <= options.maxPairDistance, angle <= options.maxPairAngle, d > 0.02 else { continue }
                candidates.append((d + angle / 30, j))
            }
            candidates.sort { ($0.0, $0.1) < ($1.0, $1.1) }
            for (_, j) in candidates.prefix(options.neighborsPerFrame) { chosen.insert([min(i, j), max(i, j)]) }
        }
        return chosen.map { ($0[0], $0[1]) }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
    }

    /// `camJFromCamI`.
    static func relativePose(_ camIFromWorld: CameraPose, _ camJFromWorld: CameraPose) -> CameraPose {
        let r = camJFromWorld.rotation * camIFromWorld.rotation.transposed
        return CameraPose(rotation: r, translation: camJFromWorld.translation - r * camIFromWorld.translation)
    }

    /// Sampson distance of a correspondence under the essential matrix `e` (normalized units).
    static func sampsonDistance(_ e: Mat3, _ a: Vec3, _ b: Vec3) -> Double {
        let ea = e * a
        let etb = e.transposed * b
        let num = b.dot(ea)
        let den = ea.x * ea.x + ea.y * ea.y + etb.x * etb.x + etb.y * etb.y
        return den > 0 ? abs(num) / den.squareRoot() : .infinity
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

/// Thread-safe slots for results of `concurrentPerform`.
final class ResultsBox<T>: @unchecked Sendable {
    private var slots: [Result<T, any Error>?]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: Result<T, any Error>) {
        lock.lock()
        slots[i] = r
        lock.unlock()
    }
    func get(_ i: Int) -> Result<T, any Error>? {
        lock.lock()
        defer { lock.unlock() }
        return slots[i]
    }
}
