import Dispatch
import VPSFeatures
import VPSGeometry
import VPSImaging

/// Stage 1 of a map build: every frame's local features, the colour under each keypoint, and each
/// keypoint in normalized camera coordinates with the frame's own intrinsics and distortion removed.
struct MapFeatures {
    /// Features per frame.
    var sets: [FeatureSet]
    /// RGB under each keypoint, 3 bytes per keypoint, per frame.
    var colors: [[UInt8]]
    /// Undistorted normalized coordinates `(X/Z, Y/Z)` per keypoint, per frame.
    var normalized: [[Vec2]]

    /// Extracts in parallel; results are stored by frame, so the output is deterministic.
    ///
    /// - Parameter cache: features of frames extracted by earlier builds (by frame name), reused and filled.
    init(
        frames: [MappingFrame], config: FeatureConfig, loadImage: @Sendable (Int) throws -> RGBImage,
        cache: MapFeatureCache? = nil
    ) throws(MapBuildError) {
        let extractor = config.makeExtractor()
        let results = ResultsBox<(FeatureSet, [UInt8])>(count: frames.count)
        DispatchQueue.concurrentPerform(iterations: frames.count) { i in
            do {
                if let cached = cache?.get(frames[i].name, config) {
                    results.set(i, .success(cached))
                    return
                }
                let rgb = try loadImage(i)
                let camera = frames[i].camera
                guard rgb.width == camera.width, rgb.height == camera.height else {
                    throw MapBuildError.imageSize(
                        name: frames[i].name, image: (rgb.width, rgb.height), camera: (camera.width, camera.height))
                }
                let set = try extractor.extract(from: rgb.gray)
                let value = (set, Self.colors(of: set, in: rgb))
                cache?.set(frames[i].name, config, value)
                results.set(i, .success(value))
            } catch {
                results.set(i, .failure(error))
            }
        }
        sets = []
        colors = []
        for i in 0..<frames.count {
            switch results.get(i) {
            case .success(let (set, c)):
                sets.append(set)
                colors.append(c)
            case .failure(let e as MapBuildError): throw e
            case .failure(let e as FeaturesError): throw .features("\(frames[i].name): \(e)")
            case .failure(let e): throw .image("\(frames[i].name): \(e)")
            case nil: throw .image("\(frames[i].name): not processed")
            }
        }
        normalized = zip(frames, sets).map { frame, set in
            set.keypoints.map { kp in
                let px = Vec2(Double(kp.x), Double(kp.y))
                // Distortion models invert by iteration; a pixel far outside their valid range falls
                // back to the pinhole (its matches then fail the epipolar check).
                return frame.camera.normalized(fromPixel: px)
                    ?? Vec2((px.x - frame.camera.cx) / frame.camera.fx, (px.y - frame.camera.cy) / frame.camera.fy)
            }
        }
    }

    /// Keypoints over all frames.
    var keypointCount: Int { sets.reduce(0) { $0 + $1.count } }

    static func colors(of set: FeatureSet, in rgb: RGBImage) -> [UInt8] {
        var colors = [UInt8](repeating: 0, count: 3 * set.count)
        for (k, kp) in set.keypoints.enumerated() {
            let x = min(rgb.width - 1, max(0, Int(kp.x))), y = min(rgb.height - 1, max(0, Int(kp.y)))
            let o = 3 * (y * rgb.width + x)
            colors[3 * k] = rgb.pixels[o]
            colors[3 * k + 1] = rgb.pixels[o + 1]
            colors[3 * k + 2] = rgb.pixels[o + 2]
        }
        return colors
    }
}
