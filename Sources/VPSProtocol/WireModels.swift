import VPSGeometry

/// `{x, y, z}` in JSON.
public struct Vector3JSON: Codable, Equatable, Sendable {
    public var x: Double, y: Double, z: Double
    /// Builds a vector.
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
    /// True when every component is finite.
    public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }
}

/// `{x, y, z, w}` quaternion in JSON (Hamilton, (x, y, z, w) order).
public struct QuaternionJSON: Codable, Equatable, Sendable {
    public var x: Double, y: Double, z: Double, w: Double
    /// Builds a quaternion.
    public init(x: Double, y: Double, z: Double, w: Double) {
        self.x = x
        self.y = y
        self.z = z
        self.w = w
    }
    /// Euclidean norm.
    public var norm: Double { (x * x + y * y + z * z + w * w).squareRoot() }
    /// True when every component is finite.
    public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite && w.isFinite }
}

/// `{position, rotation}`: a pose in JSON.
public struct PoseJSON: Codable, Equatable, Sendable {
    public var position: Vector3JSON
    public var rotation: QuaternionJSON
    /// Builds a pose.
    public init(position: Vector3JSON, rotation: QuaternionJSON) {
        self.position = position
        self.rotation = rotation
    }
}

/// The tracking pose of one frame of a multi-image query (`image<N>_data`): `{x, y, z, qx, qy, qz, qw}`.
public struct ImagePoseData: Codable, Equatable, Sendable {
    public var x: Double, y: Double, z: Double
    public var qx: Double, qy: Double, qz: Double, qw: Double
    /// Builds a pose record.
    public init(x: Double, y: Double, z: Double, qx: Double, qy: Double, qz: Double, qw: Double) {
        self.x = x
        self.y = y
        self.z = z
        self.qx = qx
        self.qy = qy
        self.qz = qz
        self.qw = qw
    }
}

/// `GeoPose` of a response (SPEC §17.4).
public struct GeoPoseJSON: Codable, Equatable, Sendable {
    /// `{"model": "WGS-84", "frame": "Y-Up-ENU"}`.
    public struct FrameSpec: Codable, Equatable, Sendable {
        public var model: String
        public var frame: String
        /// Builds a frame spec.
        public init(model: String = "WGS-84", frame: String = "Y-Up-ENU") {
            self.model = model
            self.frame = frame
        }
    }
    /// `{lat, lon, h}`.
    public struct Position: Codable, Equatable, Sendable {
        public var lat: Double, lon: Double, h: Double
        /// Builds a position.
        public init(lat: Double, lon: Double, h: Double) {
            self.lat = lat
            self.lon = lon
            self.h = h
        }
    }
    /// `{position, quaternion}`.
    public struct Pose: Codable, Equatable, Sendable {
        public var position: Position
        public var quaternion: QuaternionJSON
        /// Builds a pose.
        public init(position: Position, quaternion: QuaternionJSON) {
            self.position = position
            self.quaternion = quaternion
        }
    }
    public var frameSpec: FrameSpec
    public var pose: Pose

    enum CodingKeys: String, CodingKey {
        case frameSpec = "frame_spec"
        case pose
    }

    /// Builds a GeoPose.
    public init(frameSpec: FrameSpec = FrameSpec(), pose: Pose) {
        self.frameSpec = frameSpec
        self.pose = pose
    }
}

/// `POST /v1/m2m/token` answer.
public struct TokenResponse: Codable, Equatable, Sendable {
    /// The bearer token (HS256 JWT).
    public var token: String
    /// Expiry, ISO-8601 UTC with milliseconds.
    public var expiresOn: String
    /// Builds a response.
    public init(token: String, expiresOn: String) {
        self.token = token
        self.expiresOn = expiresOn
    }
}

/// Single-frame query answer (`query-form` and JSON `query`, SPEC §17.4).
public struct SingleFrameQueryResponse: Codable, Equatable, Sendable {
    public var poseFound: Bool
    public var position: Vector3JSON?
    public var rotation: QuaternionJSON?
    public var confidence: Double?
    public var inlierMargin: Double?
    public var mapIds: [String]?
    public var mapCodes: [String]?
    public var responseTime: Int?
    public var retrievalScores: [Double]?
    public var numMatches: [Int]?
    public var geoPose: GeoPoseJSON?
    public var message: String?
    public var reason: String?

    enum CodingKeys: String, CodingKey {
        case poseFound, position, rotation, confidence, inlierMargin, mapIds, mapCodes, responseTime
        case retrievalScores, numMatches, message, reason
        case geoPose = "GeoPose"
    }

    /// Builds a response.
    public init(
        poseFound: Bool, position: Vector3JSON? = nil, rotation: QuaternionJSON? = nil, confidence: Double? = nil,
        inlierMargin: Double? = nil, mapIds: [String]? = nil, mapCodes: [String]? = nil, responseTime: Int? = nil,
        retrievalScores: [Double]? = nil, numMatches: [Int]? = nil, geoPose: GeoPoseJSON? = nil,
        message: String? = nil, reason: String? = nil
    ) {
        self.poseFound = poseFound
        self.position = position
        self.rotation = rotation
        self.confidence = confidence
        self.inlierMargin = inlierMargin
        self.mapIds = mapIds
        self.mapCodes = mapCodes
        self.responseTime = responseTime
        self.retrievalScores = retrievalScores
        self.numMatches = numMatches
        self.geoPose = geoPose
        self.message = message
        self.reason = reason
    }
}

/// Multi-image query answer (SPEC §17.5).
public struct MultiFrameQueryResponse: Codable, Equatable, Sendable {
    public var poseFound: Bool
    /// image1's camera in the map frame.
    public var estimatedPose: PoseJSON?
    /// image1's submitted tracking pose.
    public var trackingPose: PoseJSON?
    public var confidence: Double?
    public var inlierMargin: Double?
    public var mapIds: [String]?
    public var mapCodes: [String]?
    public var responseTime: Int?
    public var numMatches: Int?
    public var geoPose: GeoPoseJSON?
    public var message: String?

    enum CodingKeys: String, CodingKey {
        case poseFound, estimatedPose, trackingPose, confidence, inlierMargin, mapIds, mapCodes, responseTime
        case numMatches, message
        case geoPose = "GeoPose"
    }

    /// Builds a response.
    public init(
        poseFound: Bool, estimatedPose: PoseJSON? = nil, trackingPose: PoseJSON? = nil, confidence: Double? = nil,
        inlierMargin: Double? = nil, mapIds: [String]? = nil, mapCodes: [String]? = nil, responseTime: Int? = nil,
        numMatches: Int? = nil, geoPose: GeoPoseJSON? = nil, message: String? = nil
    ) {
        self.poseFound = poseFound
        self.estimatedPose = estimatedPose
        self.trackingPose = trackingPose
        self.confidence = confidence
        self.inlierMargin = inlierMargin
        self.mapIds = mapIds
        self.mapCodes = mapCodes
        self.responseTime = responseTime
        self.numMatches = numMatches
        self.geoPose = geoPose
        self.message = message
    }
}

/// Object query answer (SPEC §17.6).
public struct ObjectQueryResponse: Codable, Equatable, Sendable {
    public var poseFound: Bool
    public var position: Vector3JSON?
    public var rotation: QuaternionJSON?
    public var confidence: Double?
    public var objectCodes: [String]?
    public var responseTime: Int?
    public var message: String?

    /// Builds a response.
    public init(
        poseFound: Bool, position: Vector3JSON? = nil, rotation: QuaternionJSON? = nil, confidence: Double? = nil,
        objectCodes: [String]? = nil, responseTime: Int? = nil, message: String? = nil
    ) {
        self.poseFound = poseFound
        self.position = position
        self.rotation = rotation
        self.confidence = confidence
        self.objectCodes = objectCodes
        self.responseTime = responseTime
        self.message = message
    }
}

/// `GET /v1/health` and `/healthz`.
public struct HealthResponse: Codable, Equatable, Sendable {
    public var status: String
    public var version: String
    /// Builds a response.
    public init(status: String = "ok", version: String) {
        self.status = status
        self.version = version
    }
}

extension Vector3JSON {
    /// The JSON form of a vector.
    public init(_ v: Vec3) { self.init(x: v.x, y: v.y, z: v.z) }
}

extension QuaternionJSON {
    /// The JSON form of a quaternion.
    public init(_ q: Quaternion) { self.init(x: q.x, y: q.y, z: q.z, w: q.w) }
}

extension PoseJSON {
    /// The JSON form of a `worldFromCamera` pose.
    public init(_ pose: Rigid3) {
        self.init(position: Vector3JSON(pose.translation), rotation: QuaternionJSON(pose.rotation))
    }
}
