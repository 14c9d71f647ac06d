import VPSGeometry

/// A COLMAP sparse reconstruction: cameras, registered images and 3D points, as COLMAP writes
/// them (`cameras`, `images`, `points3D` in `.txt` or `.bin`).
///
/// Poses are COLMAP's `cam_from_world` in the computer-vision camera convention, which is also
/// `CameraPose`'s; pixel coordinates use the same convention as `Camera` (top-left corner at (0, 0)).
public struct COLMAPModel: Equatable, Sendable {
    /// A camera (intrinsics shared by images).
    public struct CameraEntry: Equatable, Sendable {
        /// COLMAP camera id.
        public var id: UInt32
        /// The camera model with its parameters.
        public var camera: Camera
        /// The COLMAP model name (`PINHOLE`, `SIMPLE_RADIAL`, ...).
        public var modelName: String

        /// Builds an entry.
        public init(id: UInt32, camera: Camera, modelName: String) {
            self.id = id
            self.camera = camera
            self.modelName = modelName
        }
    }

    /// A registered image.
    public struct ImageEntry: Equatable, Sendable {
        /// COLMAP image id.
        public var id: UInt32
        /// Its camera's id.
        public var cameraID: UInt32
        /// File name relative to the image folder.
        public var name: String
        /// `camFromWorld`.
        public var camFromWorld: Rigid3
        /// Keypoints with the id of their 3D point, or nil when not triangulated.
        public var points2D: [(xy: Vec2, point3DID: UInt64?)]

        /// Builds an entry.
        public init(
            id: UInt32, cameraID: UInt32, name: String, camFromWorld: Rigid3, points2D: [(xy: Vec2, point3DID: UInt64?)]
        ) {
            self.id = id
            self.cameraID = cameraID
            self.name = name
            self.camFromWorld = camFromWorld
            self.points2D = points2D
        }

        public static func == (a: ImageEntry, b: ImageEntry) -> Bool {
            a.id == b.id && a.cameraID == b.cameraID && a.name == b.name && a.camFromWorld == b.camFromWorld
                && a.points2D.count == b.points2D.count
                && zip(a.points2D, b.points2D).allSatisfy { $0.xy == $1.xy && $0.point3DID == $1.point3DID }
        }
    }

    /// A triangulated point.
    public struct PointEntry: Equatable, Sendable {
        /// COLMAP point id.
        public var id: UInt64
        /// Position in the world frame.
        public var position: Vec3
        /// Colour.
        public var color: (UInt8, UInt8, UInt8)
        /// Mean reprojection error, pixels.
        public var error: Double
        /// Observations: (image id, index into that image's `points2D`).
        public var track: [(imageID: UInt32, point2DIndex: UInt32)]

        /// Builds an entry.
        public init(
            id: UInt64, position: Vec3, color: (UInt8, UInt8, UInt8), error: Double,
            track: [(imageID: UInt32, point2DIndex: UInt32)]
        ) {
            self.id = id
            self.position = position
            self.color = color
            self.error = error
            self.track = track
        }

        public static func == (a: PointEntry, b: PointEntry) -> Bool {
            a.id == b.id && a.position == b.position && a.color == b.color && a.error == b.error
                && a.track.count == b.track.count
                && zip(a.track, b.track).allSatisfy { $0.imageID == $1.imageID && $0.point2DIndex == $1.point2DIndex }
        }
    }

    /// Cameras, sorted by id.
    public var cameras: [CameraEntry]
    /// Images, sorted by id.
    public var images: [ImageEntry]
    /// Points, sorted by id.
    public var points: [PointEntry]

    /// Builds a model.
    public init(cameras: [CameraEntry], images: [ImageEntry], points: [PointEntry]) {
        self.cameras = cameras
        self.images = images
        self.points = points
    }

    /// Model ids, names and parameter counts of the camera models this reader supports.
    static let models: [(id: Int32, name: String, params: Int)] = [
        (0, "SIMPLE_PINHOLE", 3), (1, "PINHOLE", 4), (2, "SIMPLE_RADIAL", 4), (3, "RADIAL", 5), (4, "OPENCV", 8),
    ]

    /// Builds a `Camera` from a COLMAP model name and parameter list.
    static func camera(model: String, width: Int, height: Int, params p: [Double]) throws(COLMAPError) -> Camera {
        guard let spec = models.first(where: { $0.name == model }) else { throw .unsupportedCameraModel(model) }
        guard p.count == spec.params, p.allSatisfy(\.isFinite) else {
            throw .malformed("camera \(model) needs \(spec.params) finite parameters, got \(p.count)")
        }
        let camera: Camera
        switch model {
        case "SIMPLE_PINHOLE": camera = Camera(fx: p[0], fy: p[0], cx: p[1], cy: p[2], width: width, height: height)
        case "PINHOLE": camera = Camera(fx: p[0], fy: p[1], cx: p[2], cy: p[3], width: width, height: height)
        case "SIMPLE_RADIAL":
            camera = Camera(
                fx: p[0], fy: p[0], cx: p[1], cy: p[2], width: width, height: height, distortion: .simpleRadial(k: p[3])
            )
        case "RADIAL":
            camera = Camera(
                fx: p[0], fy: p[0], cx: p[1], cy: p[2], width: width, height: height,
                distortion: .radial(k1: p[3], k2: p[4]))
        default:
            camera = Camera(
                fx: p[0], fy: p[1], cx: p[2], cy: p[3], width: width, height: height,
                distortion: .opencv(k1: p[4], k2: p[5], p1: p[6], p2: p[7]))
        }
        do { try camera.validate() } catch { throw .malformed("camera has invalid intrinsics (\(error))") }
        return camera
    }

    /// COLMAP's parameter list for a camera entry.
    static func parameters(of entry: CameraEntry) -> [Double] {
        let c = entry.camera
        switch (entry.modelName, c.distortion) {
        case ("SIMPLE_PINHOLE", _): return [c.fx, c.cx, c.cy]
        case ("SIMPLE_RADIAL", .simpleRadial(let k)): return [c.fx, c.cx, c.cy, k]
        case ("RADIAL", .radial(let k1, let k2)): return [c.fx, c.cx, c.cy, k1, k2]
        case ("OPENCV", .opencv(let k1, let k2, let p1, let p2)): return [c.fx, c.fy, c.cx, c.cy, k1, k2, p1, p2]
        default: return [c.fx, c.fy, c.cx, c.cy]
        }
    }

    /// Checks cross-references: every image's camera exists, every track names an existing image
    /// and keypoint, and ids are unique.
    public func validate() throws(COLMAPError) {
        let cameraIDs = Set(cameras.map(\.id))
        guard cameraIDs.count == cameras.count else { throw .malformed("duplicate camera id") }
        var imagesByID: [UInt32: Int] = [:]
        for (k, image) in images.enumerated() {
            guard cameraIDs.contains(image.cameraID) else {
                throw .malformed("image \(image.id) names unknown camera \(image.cameraID)")
            }
            guard imagesByID.updateValue(k, forKey: image.id) == nil else {
                throw .malformed("duplicate image id \(image.id)")
            }
            guard image.camFromWorld.isFinite else { throw .malformed("image \(image.id) has a non-finite pose") }
        }
        var pointIDs = Set<UInt64>()
        for point in points {
            guard pointIDs.insert(point.id).inserted else { throw .malformed("duplicate point id \(point.id)") }
            guard point.position.isFinite else { throw .malformed("point \(point.id) is not finite") }
            for t in point.track {
                guard let k = imagesByID[t.imageID] else {
                    throw .malformed("point \(point.id) names unknown image \(t.imageID)")
                }
                guard Int(t.point2DIndex) < images[k].points2D.count else {
                    throw .malformed("point \(point.id) names keypoint \(t.point2DIndex) beyond image \(t.imageID)'s")
                }
            }
        }
    }
}

/// Errors reading COLMAP models; each has a stable code.
public enum COLMAPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A required file is missing.
    case missingFile(String)
    /// The content does not parse.
    case malformed(String)
    /// A camera model other than SIMPLE_PINHOLE, PINHOLE, SIMPLE_RADIAL, RADIAL, OPENCV.
    case unsupportedCameraModel(String)
    /// Reading or writing failed.
    case io(String)

    /// Stable machine-readable code.
    public var code: String {
        switch self {
        case .missingFile: return "COLMAP_MISSING_FILE"
        case .malformed: return "COLMAP_MALFORMED"
        case .unsupportedCameraModel: return "COLMAP_UNSUPPORTED_CAMERA"
        case .io: return "COLMAP_IO"
        }
    }

    public var description: String {
        switch self {
        case .missingFile(let f): return "COLMAP model file missing: \(f)"
        case .malformed(let m): return "COLMAP model malformed: \(m)"
        case .unsupportedCameraModel(let m):
            return "unsupported COLMAP camera model \(m) (use SIMPLE_PINHOLE, PINHOLE, SIMPLE_RADIAL, RADIAL or OPENCV)"
        case .io(let m): return "COLMAP I/O error: \(m)"
        }
    }
}
