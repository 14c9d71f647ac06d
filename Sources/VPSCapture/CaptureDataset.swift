import Foundation
import VPSGeometry

/// The capture dataset, format version 1 (`captures.json`, docs/FORMATS.md): frames with images,
/// intrinsics, AR poses, tracking states and optional GPS and ground truth.
///
/// Poses are `worldFromCamera` in ARKit conventions: right-handed world with +Y up, camera +X
/// right, +Y up, looking down −Z; position in metres, rotation a quaternion (x, y, z, w).
public struct CaptureDataset: Codable, Equatable, Sendable {
    /// The value of `format`.
    public static let formatName = "multiset-captures"
    /// The only version this code reads and writes.
    public static let currentVersion = 1

    /// The device that recorded the frames.
    public struct Device: Codable, Equatable, Sendable {
        /// Model (`"simulator"` for synthetic captures).
        public var model: String
        /// A free-form name.
        public var name: String

        /// A device description.
        public init(model: String, name: String) {
            self.model = model
            self.name = name
        }
    }

    /// Pinhole intrinsics in pixels of the stored image (`Camera` convention: a centred
    /// principal point is (width/2, height/2)).
    public struct Intrinsics: Codable, Equatable, Sendable {
        /// Focal lengths and principal point, pixels.
        public var fx: Double, fy: Double, cx: Double, cy: Double
        /// Size of the stored image, pixels.
        public var width: Int, height: Int

        /// Intrinsics of a camera (its distortion is not representable and is dropped).
        public init(_ camera: Camera) {
            fx = camera.fx
            fy = camera.fy
            cx = camera.cx
            cy = camera.cy
            width = camera.width
            height = camera.height
        }

        /// The intrinsics as a `Camera`.
        public var camera: Camera { Camera(fx: fx, fy: fy, cx: cx, cy: cy, width: width, height: height) }
    }

    /// A `worldFromCamera` pose: `position` [x, y, z] metres, `rotation` [x, y, z, w].
    public struct Pose: Codable, Equatable, Sendable {
        /// Camera centre [x, y, z], metres.
        public var position: [Double]
        /// Orientation quaternion [x, y, z, w] (Hamilton).
        public var rotation: [Double]

        /// The pose of a rigid transform.
        public init(_ worldFromCamera: Rigid3) {
            let t = worldFromCamera.translation, q = worldFromCamera.rotation
            position = [t.x, t.y, t.z]
            rotation = [q.x, q.y, q.z, q.w]
        }

        /// The pose as a rigid transform (rotation normalized); nil when malformed or not finite.
        public var rigid: Rigid3? {
            guard position.count == 3, rotation.count == 4, (position + rotation).allSatisfy(\.isFinite) else {
                return nil
            }
            let q = Quaternion(x: rotation[0], y: rotation[1], z: rotation[2], w: rotation[3])
            guard q.norm > 1e-9 else { return nil }
            return Rigid3(rotation: q, translation: Vec3(position[0], position[1], position[2]))
        }
    }

    /// A GPS fix: WGS-84 degrees, ellipsoidal altitude and accuracy in metres.
    public struct GPS: Codable, Equatable, Sendable {
        /// WGS-84 latitude and longitude, degrees.
        public var latitude: Double, longitude: Double
        /// Ellipsoidal altitude and horizontal accuracy, metres.
        public var altitude: Double, horizontalAccuracy: Double

        /// A fix.
        public init(latitude: Double, longitude: Double, altitude: Double, horizontalAccuracy: Double) {
            self.latitude = latitude
            self.longitude = longitude
            self.altitude = altitude
            self.horizontalAccuracy = horizontalAccuracy
        }
    }

    /// One captured frame.
    public struct Frame: Codable, Equatable, Sendable {
        /// Unique within the dataset, e.g. `frame_000000`.
        public var id: String
        /// Image path relative to the dataset folder.
        public var image: String
        /// Seconds, monotonic within the capture.
        public var timestamp: Double
        /// Intrinsics of the stored image.
        public var intrinsics: Intrinsics
        /// The AR session's pose (session world frame).
        public var arPose: Pose
        /// `normal`, `limited` or `notAvailable`.
        public var trackingState: String
        /// Optional GPS fix.
        public var gps: GPS?
        /// Simulator only: the true pose in the venue (map) frame.
        public var truth: Pose?

        /// A frame record.
        public init(
            id: String, image: String, timestamp: Double, intrinsics: Intrinsics, arPose: Pose, trackingState: String,
            gps: GPS? = nil, truth: Pose? = nil
        ) {
            self.id = id
            self.image = image
            self.timestamp = timestamp
            self.intrinsics = intrinsics
            self.arPose = arPose
            self.trackingState = trackingState
            self.gps = gps
            self.truth = truth
        }
    }

    /// Always `multiset-captures`.
    public var format: String
    /// Format version (1).
    public var version: Int
    /// The recording device.
    public var device: Device
    /// The frames in capture order.
    public var frames: [Frame]
    /// Optional mesh (OBJ or PLY) in the frame of `arPose`, relative path.
    public var mesh: String?

    /// An empty dataset of the current version.
    public init(device: Device, frames: [Frame] = [], mesh: String? = nil) {
        format = CaptureDataset.formatName
        version = CaptureDataset.currentVersion
        self.device = device
        self.frames = frames
        self.mesh = mesh
    }

    /// A problem found by `validate(imagesIn:)`, naming the frame when there is one.
    public struct ValidationError: Error, Equatable, Sendable, CustomStringConvertible {
        /// What is wrong, naming the frame.
        public let description: String
    }

    /// Reads and validates `captures.json` in `directory` (images included).
    ///
    /// - Throws: file-system or `DecodingError`s, or `ValidationError`.
    public static func load(from directory: URL) throws -> CaptureDataset {
        let data = try Data(contentsOf: directory.appendingPathComponent("captures.json"))
        let dataset = try JSONDecoder().decode(CaptureDataset.self, from: data)
        try dataset.validate(imagesIn: directory)
        return dataset
    }

    /// Checks the rules of docs/FORMATS.md: known format and version 1, unique ids, positive
    /// finite intrinsics, finite poses, known tracking states, non-decreasing timestamps and —
    /// when `directory` is given — that every image exists.
    public func validate(imagesIn directory: URL? = nil) throws(ValidationError) {
        guard format == CaptureDataset.formatName else {
            throw ValidationError(description: "unknown format '\(format)'")
        }
        guard version == CaptureDataset.currentVersion else {
            throw ValidationError(description: "unsupported version \(version) (this reader knows 1)")
        }
        var ids = Set<String>()
        var previous = -Double.infinity
        for f in frames {
            guard ids.insert(f.id).inserted else { throw ValidationError(description: "frame \(f.id): duplicate id") }
            let k = f.intrinsics
            guard [k.fx, k.fy, k.cx, k.cy].allSatisfy({ $0.isFinite && $0 > 0 }), k.width > 0, k.height > 0 else {
                throw ValidationError(description: "frame \(f.id): intrinsics must be finite and positive")
            }
            guard f.arPose.rigid != nil, f.truth.map({ $0.rigid != nil }) ?? true else {
                throw ValidationError(description: "frame \(f.id): pose is malformed or not finite")
            }
            guard ["normal", "limited", "notAvailable"].contains(f.trackingState) else {
                throw ValidationError(description: "frame \(f.id): unknown tracking state '\(f.trackingState)'")
            }
            guard f.timestamp.isFinite, f.timestamp >= previous else {
                throw ValidationError(description: "frame \(f.id): timestamp is not monotonic")
            }
            previous = f.timestamp
            if let directory, !FileManager.default.fileExists(atPath: directory.appendingPathComponent(f.image).path) {
                throw ValidationError(description: "frame \(f.id): missing image \(f.image)")
            }
        }
    }
}
