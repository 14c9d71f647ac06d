import Dispatch
import Foundation
import MultiSetCommandLine
import VPSGeometry
import VPSImaging
import VPSLocalizer
import VPSMap

/// `multiset eval-stereo`: a map from the left view of a calibrated stereo pair and its depth, the right
/// view localized against it, compared with the calibration's right-from-left pose.
enum EvalStereoCommand {
    /// The options of this command that take no value.
    static let switches: Set<String> = ["json"]

    static let usage = """
        usage: multiset eval-stereo --left L.png --right R.png --depth D.pfm --calib C.json [--max-depth-spread F]
                                [--json FILE]

        Builds a map from the left view and its depth (camera-frame Z in metres; a PFM file, or raw little-endian
        float32 of the calibration's size; 0, NaN or inf where unknown), localizes the right view against it in
        process and prints the position and rotation errors against the calibration's right-from-left pose,
        with matches, inliers and time per stage. `make eval-motorcycle` runs it on the Middlebury 2014
        motorcycle pair that scikit-image ships (bench/motorcycle.py writes the files and the calibration).

        --max-depth-spread: largest relative depth spread of a keypoint's 3×3 neighbourhood for it to be
        lifted into the map (default 0.03; larger keeps keypoints on depth edges).

        calibration JSON: {"left": {"fx", "fy", "cx", "cy", "width", "height"}, "right": {...},
          "right_from_left": {"rotation": [[3×3]], "translation": [x, y, z]}}  (metres, computer-vision
          camera axes: x right, y down, z forward; pixel (0, 0) is the top-left pixel's corner)
        """

    struct Intrinsics: Decodable {
        var fx: Double, fy: Double, cx: Double, cy: Double, width: Int, height: Int
        var camera: Camera { Camera(fx: fx, fy: fy, cx: cx, cy: cy, width: width, height: height) }
    }

    struct Calibration: Decodable {
        struct Pose: Decodable {
            var rotation: [[Double]]
            var translation: [Double]
        }
        var left: Intrinsics
        var right: Intrinsics
        var rightFromLeft: Pose

        enum CodingKeys: String, CodingKey {
            case left, right
            case rightFromLeft = "right_from_left"
        }

        /// `camRightFromCamLeft`.
        func pose() throws -> CameraPose {
            let r = rightFromLeft.rotation, t = rightFromLeft.translation
            guard r.count == 3, r.allSatisfy({ $0.count == 3 }), t.count == 3,
                (r.flatMap { $0 } + t).allSatisfy(\.isFinite)
            else { throw UsageError("--calib: right_from_left needs a 3×3 rotation and a 3-vector translation") }
            let m = Mat3(
                rows: Vec3(r[0][0], r[0][1], r[0][2]), Vec3(r[1][0], r[1][1], r[1][2]), Vec3(r[2][0], r[2][1], r[2][2]))
            return CameraPose(rotation: m, translation: Vec3(t[0], t[1], t[2]))
        }
    }

    static func readImage(_ path: String) throws -> RGBImage {
        path.lowercased().hasSuffix(".png") ? try PNG.readRGB(fromFile: path) : try JPEG.readRGB(fromFile: path)
    }

    static func readDepth(_ path: String, width: Int, height: Int) throws -> DepthMap {
        if path.lowercased().hasSuffix(".pfm") {
            let pfm = try PFM.read(fromFile: path)
            guard pfm.channels == 1 else {
                throw BenchError("\(path): a depth PFM has one channel, found \(pfm.channels)")
            }
            return DepthMap(width: pfm.width, height: pfm.height, values: pfm.values)
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard data.count == 4 * width * height else {
            throw BenchError(
                "\(path): \(data.count) bytes, expected \(4 * width * height) (float32 \(width)×\(height))")
        }
        let values = [UInt8](data).withUnsafeBytes { raw in
            (0..<(width * height)).map {
                Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self)))
            }
        }
        return DepthMap(width: width, height: height, values: values)
    }

    static func run(_ args: inout Arguments) throws -> Int32 {
        if args.flag("help") {
            print(usage)
            return 0
        }
        guard let leftPath = args.string("left"), let rightPath = args.string("right"),
            let depthPath = args.string("depth"), let calibPath = args.string("calib")
        else { throw UsageError("eval-stereo needs --left, --right, --depth and --calib\n\(usage)") }
        // `--json FILE`: the parser treats --json as a switch, so FILE arrives as the next positional word.
        let spreadText = args.string("max-depth-spread")
        let maxSpread = spreadText.map { Double($0) ?? .nan } ?? DepthMapBuildOptions().maxDepthSpread
        let jsonPath = args.flag("json") ? args.positionals.dropFirst().first : nil
        if args.flag("json") && jsonPath == nil { throw UsageError("--json needs a file name") }
        try args.rejectUnknown()
        guard maxSpread >= 0, maxSpread.isFinite else { throw UsageError("--max-depth-spread takes a number ≥ 0") }

        let calibration: Calibration
        do {
            calibration = try JSONDecoder().decode(
                Calibration.self, from: Data(contentsOf: URL(fileURLWithPath: calibPath)))
        } catch { throw UsageError("--calib \(calibPath): \(error)") }
        let truth = try calibration.pose()
        let leftCamera = calibration.left.camera, rightCamera = calibration.right.camera
        do {
            try leftCamera.validate()
            try rightCamera.validate()
        } catch { throw UsageError("--calib: invalid intrinsics (\(error))") }
        let left = try readImage(leftPath), right = try readImage(rightPath).gray
        let depth = try readDepth(depthPath, width: leftCamera.width, height: leftCamera.height)
        guard right.width == rightCamera.width, right.height == rightCamera.height else {
            throw BenchError(
                "right image is \(right.width)×\(right.height), the calibration says \(rightCamera.width)×\(rightCamera.height)"
            )
        }

        // The map frame is the left camera's frame.
        var options = DepthMapBuildOptions()
        options.maxDepthSpread = maxSpread
        let start = DispatchTime.now().uptimeNanoseconds
        let (map, _) = try MapBuilder.build(
            depthFrames: [
                DepthMappingFrame(
                    frame: MappingFrame(name: "left", camera: leftCamera, camFromMap: .identity), image: left,
                    depth: depth)
            ], code: "MAP_STEREOLEFT01", name: "stereo left", options: options)
        let prepared = try LocalizationMap(map)
        let buildSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let outcome = try Localizer.localize(image: right, camera: rightCamera, map: prepared)
        let total = outcome.seconds.values.reduce(0, +)
        let stages = outcome.seconds.sorted { $0.key < $1.key }

        print(
            "stereo pair: \(left.width)×\(left.height), depth known at \(String(format: "%.1f", 100 * Double(depth.values.filter { $0.isFinite && $0 > 0 }.count) / Double(depth.values.count))) % of the left pixels"
        )
        print(
            String(
                format: "map from the left view: %d points of %d features, built in %.1f ms", map.pointCount,
                map.keyframes[0].keypoints.count, buildSeconds * 1000))
        print(
            "right view: \(outcome.features) features, \(outcome.matches) matches, \(outcome.inliers) inliers; "
                + String(format: "localized in %.1f ms (", total * 1000)
                + stages.map { String(format: "%@ %.1f", $0.key, $0.value * 1000) }.joined(separator: ", ") + " ms)")
        var object: [String: Any] = [
            "image": [left.width, left.height], "map_points": map.pointCount, "features": outcome.features,
            "matches": outcome.matches, "inliers": outcome.inliers, "build_ms": buildSeconds * 1000,
            "localize_ms": Dictionary(uniqueKeysWithValues: stages.map { ($0.key, $0.value * 1000) }),
            "pose_found": outcome.camFromMap != nil,
        ]
        defer {
            if let jsonPath,
                let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])
            {
                try? data.write(to: URL(fileURLWithPath: jsonPath))
            }
        }
        guard let pose = outcome.camFromMap else {
            print("no pose: \(outcome.failure?.rawValue ?? "unknown")")
            return 1
        }
        let e = pose.error(to: truth)
        let baseline = truth.center.norm
        print(
            String(
                format: "error: position %.2f mm (%.2f %% of the %.1f mm baseline), rotation %.4f°; confidence %.2f",
                e.positionMeters * 1000, 100 * e.positionMeters / max(baseline, 1e-12), baseline * 1000,
                e.rotationDegrees, outcome.confidence))
        let c = pose.center
        print(
            String(
                format: "right camera centre in the left frame: (%.2f, %.2f, %.2f) mm", c.x * 1000, c.y * 1000,
                c.z * 1000))
        object["position_error_mm"] = e.positionMeters * 1000
        object["rotation_error_deg"] = e.rotationDegrees
        object["confidence"] = outcome.confidence
        return 0
    }
}
