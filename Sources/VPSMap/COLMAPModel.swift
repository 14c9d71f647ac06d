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

    /// Model ids, names and parameter counts of the camera models this reader supports: every
    /// model of COLMAP's `CameraModelId` 0–11.
    static let models: [(id: Int32, name: String, params: Int)] = [
        (0, "SIMPLE_PINHOLE", 3), (1, "PINHOLE", 4), (2, "SIMPLE_RADIAL", 4), (3, "RADIAL", 5), (4, "OPENCV", 8),
        (5, "OPENCV_FISHEYE", 8), (6, "FULL_OPENCV", 12), (7, "FOV", 5), (8, "SIMPLE_RADIAL_FISHEYE", 4),
        (9, "RADIAL_FISHEYE", 5), (10, "THIN_PRISM_FISHEYE", 12), (11, "RAD_TAN_THIN_PRISM_FISHEYE", 16),
    ]

    /// The supported model names, for messages.
    static var modelNames: String { models.map(\.name).joined(separator: ", ") }

    /// Builds a `Camera` from a COLMAP model name and parameter list.
    static func camera(model: String, width: Int, height: Int, params p: [Double]) throws(COLMAPError) -> Camera {
        guard let spec = models.first(where: { $0.name == model }) else { throw .unsupportedCameraModel(model) }
        guard p.count == spec.params, p.allSatisfy(\.isFinite) else {
            throw .malformed("camera \(model) needs \(spec.params) finite parameters, got \(p.count)")
        }
        // Models with one focal length: f, cx, cy, then the distortion; the others fx, fy, cx, cy.
        let single = ["SIMPLE_PINHOLE", "SIMPLE_RADIAL", "RADIAL", "SIMPLE_RADIAL_FISHEYE", "RADIAL_FISHEYE"]
            .contains(model)
        let (fx, fy, cx, cy) = single ? (p[0], p[0], p[1], p[2]) : (p[0], p[1], p[2], p[3])
        let c = Array(p[(single ? 3 : 4)...])
        let distortion: LensDistortion
        switch model {
        case "SIMPLE_RADIAL": distortion = .simpleRadial(k: c[0])
        case "RADIAL": distortion = .radial(k1: c[0], k2: c[1])
        case "OPENCV": distortion = .opencv(k1: c[0], k2: c[1], p1: c[2], p2: c[3])
        case "OPENCV_FISHEYE": distortion = .openCVFisheye(k1: c[0], k2: c[1], k3: c[2], k4: c[3])
        case "FULL_OPENCV":
            distortion = .fullOpenCV(k1: c[0], k2: c[1], p1: c[2], p2: c[3], k3: c[4], k4: c[5], k5: c[6], k6: c[7])
        case "FOV": distortion = .fov(omega: c[0])
        case "SIMPLE_RADIAL_FISHEYE": distortion = .simpleRadialFisheye(k: c[0])
        case "RADIAL_FISHEYE": distortion = .radialFisheye(k1: c[0], k2: c[1])
        case "THIN_PRISM_FISHEYE":
            distortion = .thinPrismFisheye(
                k1: c[0], k2: c[1], p1: c[2], p2: c[3], k3: c[4], k4: c[5], sx1: c[6], sy1: c[7])
        case "RAD_TAN_THIN_PRISM_FISHEYE": distortion = .radTanThinPrismFisheye(coefficients: c)
        default: distortion = .none
        }
        let camera = Camera(fx: fx, fy: fy, cx: cx, cy: cy, width: width, height: height, distortion: distortion)
        do { try camera.validate() } catch { throw .malformed("camera has invalid intrinsics (\(error))") }
        return camera
    }

    /// The model name and parameter list a camera entry is written with: focal length(s), principal
    /// point, then the distortion's coefficients. An entry whose name does not describe its camera (a
    /// `SIMPLE_RADIAL` name on a fisheye distortion) is written as `PINHOLE`, without distortion.
    static func written(_ entry: CameraEntry) -> (name: String, params: [Double]) {
        let c = entry.camera
        let spec = models.first { $0.name == entry.modelName }
        let single = spec?.params == 3 + c.distortion.coefficients.count
        let params = (single ? [c.fx, c.cx, c.cy] : [c.fx, c.fy, c.cx, c.cy]) + c.distortion.coefficients
        // The list must read back as this camera under this name.
        guard let back = try? camera(model: entry.modelName, width: c.width, height: c.height, params: params),
            back.distortion == c.distortion, back.fx == c.fx, back.fy == c.fy
        else { return ("PINHOLE", [c.fx, c.fy, c.cx, c.cy]) }
        return (entry.modelName, params)
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
    /// A camera model this reader does not know (COLMAP's models 0–11 are known).
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
            return "unsupported COLMAP camera model \(m) (known: \(COLMAPModel.modelNames))"
        case .io(let m): return "COLMAP I/O error: \(m)"
        }
    }
}
