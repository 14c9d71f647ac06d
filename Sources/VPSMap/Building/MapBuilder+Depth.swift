import Dispatch
import VPSFeatures
import VPSGeometry
import VPSImaging

/// Options of `MapBuilder.build(depthFrames:…)`.
public struct DepthMapBuildOptions: Sendable {
    /// The local features of the map (queries must use the same).
    public var featureConfig: FeatureConfig = .orb2000
    /// A keypoint is lifted only when the depths of its 3×3 pixel neighbourhood agree within this
    /// fraction (`(max − min) / min`); larger spreads mark depth discontinuities.
    public var maxDepthSpread = 0.03
    /// Depths outside this range (metres) are ignored.
    public var depthRange: ClosedRange<Double> = 0.05...100
    /// A keypoint of a later image that lands within this many pixels of an earlier point's projection,
    /// at a consistent depth and with a similar descriptor, observes that point instead of adding a new one.
    public var mergeRadius = 2.0
    /// Largest Hamming distance (of 256 bits) between descriptors of merged observations.
    public var mergeDescriptorDistance = 64

    /// Defaults.
    public init() {}
}

/// One posed image with its depth, for `MapBuilder.build(depthFrames:…)`.
public struct DepthMappingFrame: Sendable {
    /// Name, intrinsics and `camFromMap` (computer-vision camera, map frame right-handed, metres).
    public var frame: MappingFrame
    /// The colour image, of the camera's size.
    public var image: RGBImage
    /// Camera-frame Z per pixel in metres (see `DepthMap`), of the camera's size.
    public var depth: DepthMap

    /// Builds a frame.
    public init(frame: MappingFrame, image: RGBImage, depth: DepthMap) {
        self.frame = frame
        self.image = image
        self.depth = depth
    }
}

extension MapBuilder {
    /// Builds a map from posed images whose per-pixel depth is known (a depth sensor, a rendered view,
    /// a stereo pair's disparity): no matching or triangulation, each keypoint is lifted along its ray.
    ///
    /// 1. Extract the features of `options.featureConfig` from every image (in parallel, stored by image).
    /// 2. For each keypoint, interpolate the depth at its position (`DepthMap.interpolatedDepth`), skipping
    ///    keypoints without depth, outside `depthRange`, or on a depth discontinuity (`maxDepthSpread`).
    /// 3. Lift it: X_cam = Z · (x_n, y_n, 1) with (x_n, y_n) the keypoint's normalized coordinates (lens
    ///    distortion removed), then X_map = camFromMap⁻¹ · X_cam.
    /// 4. Images after the first first try to observe existing points (projection within `mergeRadius`
    ///    px, 3D distance within `maxDepthSpread · Z`, descriptor within `mergeDescriptorDistance`);
    ///    otherwise the keypoint becomes a new point with its own descriptor and the colour under it.
    ///
    /// Every image is one keyframe; its keypoints without depth stay in the keyframe with point index −1.
    ///
    /// - Parameters:
    ///   - frames: the images, poses and depths.
    ///   - code: the map code.
    ///   - name: display name.
    /// - Returns: the map (frame: the poses' map frame, metres) and a report (`points`, `meanTrackLength`
    ///   = observations per point, seconds per stage).
    /// - Throws: `MapBuildError.noFrames`, `.image` when an image or depth map does not match its
    ///   camera's size, `.features`, `.tooFewPoints` below 10 points.
    /// - Complexity: O(keypoints) per image plus the extraction.
    public static func build(
        depthFrames frames: [DepthMappingFrame], code: String, name: String,
        options: DepthMapBuildOptions = DepthMapBuildOptions()
    ) throws(MapBuildError) -> (MapData, MapBuildReport) {
        guard !frames.isEmpty else { throw .noFrames }
        for f in frames {
            let c = f.frame.camera
            guard f.image.width == c.width, f.image.height == c.height, f.depth.width == c.width,
                f.depth.height == c.height
            else {
                throw .image(
                    "\(f.frame.name): image \(f.image.width)×\(f.image.height) and depth "
                        + "\(f.depth.width)×\(f.depth.height) must match the camera's \(c.width)×\(c.height)")
            }
        }
        var report = MapBuildReport()
        report.frames = frames.count
        var clock = DispatchTime.now().uptimeNanoseconds
        func lap(_ stage: String) {
            let now = DispatchTime.now().uptimeNanoseconds
            report.seconds[stage] = Double(now - clock) / 1e9
            clock = now
        }

        let extractor = options.featureConfig.makeExtractor()
        let results = ResultsBox<FeatureSet>(count: frames.count)
        DispatchQueue.concurrentPerform(iterations: frames.count) { i in
            do { results.set(i, .success(try extractor.extract(from: frames[i].image.gray))) } catch {
                results.set(i, .failure(error))
            }
        }
        var features: [FeatureSet] = []
        for i in frames.indices {
            switch results.get(i) {
            case .success(let set): features.append(set)
            case .failure(let e): throw .features("\(frames[i].frame.name): \(e)")
            case nil: throw .features("\(frames[i].frame.name): not processed")
            }
        }
        lap("features")

        let bytesPerDescriptor = options.featureConfig.descriptorKind == .binary256 ? 32 : 512
        var positions: [Vec3] = []
        var colors: [UInt8] = []
        var pointDescriptors: [UInt8] = []
        var patches: [UInt8] = []
        let isBinary = options.featureConfig.descriptorKind == .binary256
        var binary: [SIMD4<UInt64>] = []
        var observations = 0
        var keyframes: [Keyframe] = []
        for (i, f) in frames.enumerated() {
            let set = features[i]
            let pose = f.frame.camFromMap, camera = f.frame.camera
            let descriptors = allDescriptorBytes(set)
            let merge = MergeGrid(
                positions: positions, pose: pose, camera: camera, cell: max(1, options.mergeRadius))
            var indices = [Int32](repeating: -1, count: set.count)
            var taken = Set<Int>()
            let integral = IntegralImage(f.image.gray)
            for (k, kp) in set.keypoints.enumerated() {
                let px = Vec2(Double(kp.x), Double(kp.y))
                guard let z = f.depth.interpolatedDepth(atPixel: SIMD2(px.x, px.y), maxSpread: options.maxDepthSpread),
                    options.depthRange.contains(z), let n = camera.normalized(fromPixel: px)
                else { continue }
                let x = pose.rotation.transposed * (Vec3(n.x * z, n.y * z, z) - pose.translation)
                let descriptor = set.descriptors.binary?[k]
                if let descriptor,
                    let existing = merge.nearest(
                        to: px, position: x, radius: options.mergeRadius, distance: options.maxDepthSpread * z,
                        accept: {
                            !taken.contains($0)
                                && BinaryDescriptors.distance(binary[$0], descriptor) <= options.mergeDescriptorDistance
                        })
                {
                    taken.insert(existing)
                    indices[k] = Int32(existing)
                    observations += 1
                    continue
                }
                indices[k] = Int32(positions.count)
                positions.append(x)
                let ix = min(f.image.width - 1, max(0, Int(kp.x))), iy = min(f.image.height - 1, max(0, Int(kp.y)))
                let o = 3 * (iy * f.image.width + ix)
                colors += f.image.pixels[o..<(o + 3)]
                pointDescriptors += descriptors[(k * bytesPerDescriptor)..<((k + 1) * bytesPerDescriptor)]
                // The first view is the point's reference (its depth put the point there).
                patches +=
                    PointPatch.sample(integral, at: PatchFrame(keypoint: kp, binary: isBinary))
                    ?? [UInt8](repeating: 0, count: PointPatch.count)
                binary.append(descriptor ?? .zero)
                observations += 1
            }
            keyframes.append(
                Keyframe(
                    id: UInt32(i), name: f.frame.name, camera: camera, camFromMap: pose.rigid,
                    keypoints: set.keypoints.map(\.position), descriptors: descriptors, pointIndices: indices))
        }
        lap("lifting")
        guard positions.count >= 10 else { throw .tooFewPoints(positions.count) }
        report.points = positions.count
        report.tracks = positions.count
        report.meanTrackLength = Double(observations) / Double(positions.count)
        var map = MapData(
            code: code, name: name,
            featureConfig: FeatureConfigID(name: options.featureConfig.name, version: options.featureConfig.version),
            descriptorBytes: bytesPerDescriptor, positions: positions, colors: colors,
            pointDescriptors: pointDescriptors, keyframes: keyframes)
        map.pointPatches = patches
        return (map, report)
    }
}

/// Existing map points bucketed by their projection into a new image, for merging observations.
private struct MergeGrid {
    let cell: Double
    var buckets: [SIMD2<Int>: [(index: Int, pixel: Vec2, position: Vec3)]] = [:]

    init(positions: [Vec3], pose: CameraPose, camera: Camera, cell: Double) {
        self.cell = cell
        for (i, x) in positions.enumerated() {
            guard let px = camera.project(pose.transform(x)), camera.contains(px) else { continue }
            buckets[key(px), default: []].append((i, px, x))
        }
    }

    func key(_ px: Vec2) -> SIMD2<Int> { SIMD2(Int((px.x / cell).rounded(.down)), Int((px.y / cell).rounded(.down))) }

    /// The closest point (in pixels) projecting within `radius` of `px`, within `distance` metres of
    /// `position`, that `accept`s.
    func nearest(
        to px: Vec2, position: Vec3, radius: Double, distance: Double, accept: (Int) -> Bool
    ) -> Int? {
        guard !buckets.isEmpty else { return nil }
        let centre = key(px)
        let reach = Int((radius / cell).rounded(.up))
        var best: Int?
        var bestDistance = radius * radius
        for dy in -reach...reach {
            for dx in -reach...reach {
                for c in buckets[centre &+ SIMD2(dx, dy)] ?? [] {
                    let d = (c.pixel - px).squaredNorm
                    guard d <= bestDistance, c.position.distance(to: position) <= distance, accept(c.index) else {
                        continue
                    }
                    best = c.index
                    bestDistance = d
                }
            }
        }
        return best
    }
}
