/// Map status values (SPEC §17.7).
public enum MapStatus: String, Codable, Sendable {
    case active, processing, failed, inactive
}

/// One entry of `GET /v1/vps/map`.
public struct MapSummary: Codable, Equatable, Sendable {
    public var id: String
    public var name: String
    public var description: String
    public var createdAt: String
    public var updatedAt: String
    public var status: MapStatus
    /// [Project design] The map's code (what a localization names), so a list can open a map.
    public var mapCode: String?
    /// Builds a summary.
    public init(
        id: String, name: String, description: String, createdAt: String, updatedAt: String, status: MapStatus,
        mapCode: String? = nil
    ) {
        self.id = id
        self.name = name
        self.description = description
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.status = status
        self.mapCode = mapCode
    }
}

/// Pagination block of list answers.
public struct Pagination: Codable, Equatable, Sendable {
    public var totalItems: Int
    public var totalPages: Int
    public var currentPage: Int
    public var itemsPerPage: Int
    /// Builds a pagination block.
    public init(totalItems: Int, totalPages: Int, currentPage: Int, itemsPerPage: Int) {
        self.totalItems = totalItems
        self.totalPages = totalPages
        self.currentPage = currentPage
        self.itemsPerPage = itemsPerPage
    }
}

/// `GET /v1/vps/map?page=&limit=`.
public struct MapListResponse: Codable, Equatable, Sendable {
    public var data: [MapSummary]
    public var pagination: Pagination
    /// Builds a list answer.
    public init(data: [MapSummary], pagination: Pagination) {
        self.data = data
        self.pagination = pagination
    }
}

/// `{type, meshLink}` of a mesh.
public struct MeshLink: Codable, Equatable, Sendable {
    public var type: String?
    public var meshLink: String?
    /// Builds a mesh link.
    public init(type: String? = "glb", meshLink: String?) {
        self.type = type
        self.meshLink = meshLink
    }
}

/// `mapMesh` of map details.
public struct MapMesh: Codable, Equatable, Sendable {
    public var id: String?
    public var rawMesh: MeshLink?
    public var texturedMesh: MeshLink?
    enum CodingKeys: String, CodingKey {
        case id = "_id"
        case rawMesh, texturedMesh
    }
    /// Builds a mesh block.
    public init(id: String?, rawMesh: MeshLink?, texturedMesh: MeshLink?) {
        self.id = id
        self.rawMesh = rawMesh
        self.texturedMesh = texturedMesh
    }
}

/// `{type: "Point", coordinates: [lon, lat, alt]}`.
public struct GeoJSONPoint: Codable, Equatable, Sendable {
    public var type: String
    public var coordinates: [Double]
    /// Builds a point.
    public init(longitude: Double, latitude: Double, altitude: Double) {
        type = "Point"
        coordinates = [longitude, latitude, altitude]
    }
}

/// `{fx, fy, px, py}`.
public struct IntrinsicsJSON: Codable, Equatable, Sendable {
    public var fx: Double, fy: Double, px: Double, py: Double
    /// Builds intrinsics.
    public init(fx: Double, fy: Double, px: Double, py: Double) {
        self.fx = fx
        self.fy = fy
        self.px = px
        self.py = py
    }
}

/// `{width, height}`.
public struct ResolutionJSON: Codable, Equatable, Sendable {
    public var width: Int, height: Int
    /// Builds a resolution.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// `source {provider, fileType, coordinateSystem}`.
public struct MapSource: Codable, Equatable, Sendable {
    public var provider: String?
    public var fileType: String?
    public var coordinateSystem: String?
    /// Builds a source block.
    public init(provider: String?, fileType: String?, coordinateSystem: String?) {
        self.provider = provider
        self.fileType = fileType
        self.coordinateSystem = coordinateSystem
    }
}

/// `{latitude, longitude, altitude}` of map-set entries.
public struct CoordinatesJSON: Codable, Equatable, Sendable {
    public var latitude: Double, longitude: Double, altitude: Double
    /// Builds coordinates.
    public init(latitude: Double, longitude: Double, altitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }
}

/// `GET /v1/vps/map/{mapIdOrCode}` (SPEC §17.7).
public struct MapDetails: Codable, Equatable, Sendable {
    public var id: String
    public var accountId: String
    public var mapName: String
    public var mapCode: String
    public var status: MapStatus
    public var mapMesh: MapMesh?
    public var thumbnail: String?
    public var location: GeoJSONPoint?
    public var storage: Int?
    public var createdAt: String
    public var updatedAt: String
    public var cameraIntrinsics: IntrinsicsJSON?
    public var resolution: ResolutionJSON?
    public var globalFeature: String?
    public var source: MapSource?
    /// Map-set entries carry the map's coordinates here.
    public var coordinates: CoordinatesJSON?
    /// [Project design] Heading of map +Z from north, degrees (SPEC §18.4).
    public var heading: Double?
    /// [Project design] While the map builds (`processing`) or an extension of it builds: stage and percent.
    public var build: MapBuildProgressJSON?
    /// [Project design] Why the build failed (`failed`): the builder's code and reason.
    public var failure: MapBuildFailureJSON?

    enum CodingKeys: String, CodingKey {
        case id = "_id"
        case accountId, mapName, mapCode, status, mapMesh, thumbnail, location, storage, createdAt, updatedAt
        case cameraIntrinsics, resolution, globalFeature, source, coordinates, heading, build, failure
    }

    /// Builds map details.
    public init(
        id: String, accountId: String, mapName: String, mapCode: String, status: MapStatus, mapMesh: MapMesh? = nil,
        thumbnail: String? = nil, location: GeoJSONPoint? = nil, storage: Int? = nil, createdAt: String,
        updatedAt: String, cameraIntrinsics: IntrinsicsJSON? = nil, resolution: ResolutionJSON? = nil,
        globalFeature: String? = nil, source: MapSource? = nil, coordinates: CoordinatesJSON? = nil,
        heading: Double? = nil
    ) {
        self.id = id
        self.accountId = accountId
        self.mapName = mapName
        self.mapCode = mapCode
        self.status = status
        self.mapMesh = mapMesh
        self.thumbnail = thumbnail
        self.location = location
        self.storage = storage
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.cameraIntrinsics = cameraIntrinsics
        self.resolution = resolution
        self.globalFeature = globalFeature
        self.source = source
        self.coordinates = coordinates
        self.heading = heading
    }
}

/// `{position {x,y,z}, rotation {qx,qy,qz,qw}}` of map-set entries (left-handed, SPEC §17.8).
public struct RelativePoseJSON: Codable, Equatable, Sendable {
    /// `{qx, qy, qz, qw}`.
    public struct Rotation: Codable, Equatable, Sendable {
        public var qx: Double, qy: Double, qz: Double, qw: Double
        /// Builds a rotation.
        public init(qx: Double, qy: Double, qz: Double, qw: Double) {
            self.qx = qx
            self.qy = qy
            self.qz = qz
            self.qw = qw
        }
    }
    public var position: Vector3JSON
    public var rotation: Rotation
    /// Builds a relative pose.
    public init(position: Vector3JSON, rotation: Rotation) {
        self.position = position
        self.rotation = rotation
    }
}

/// One map of a map set.
public struct MapSetEntry: Codable, Equatable, Sendable {
    public var id: String
    public var order: Int
    public var relativePose: RelativePoseJSON
    public var baseRelativePose: RelativePoseJSON?
    public var map: MapDetails?
    /// This server always answers `{}` (SPEC §17.7); decoded tolerantly.
    public var baseMap: MapDetails?

    enum CodingKeys: String, CodingKey {
        case id = "_id"
        case order, relativePose, baseRelativePose, map, baseMap
    }

    /// Builds an entry.
    public init(
        id: String, order: Int, relativePose: RelativePoseJSON, baseRelativePose: RelativePoseJSON?, map: MapDetails?
    ) {
        self.id = id
        self.order = order
        self.relativePose = relativePose
        self.baseRelativePose = baseRelativePose
        self.map = map
        baseMap = nil
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        order = try c.decode(Int.self, forKey: .order)
        relativePose = try c.decode(RelativePoseJSON.self, forKey: .relativePose)
        baseRelativePose = try c.decodeIfPresent(RelativePoseJSON.self, forKey: .baseRelativePose)
        map = try c.decodeIfPresent(MapDetails.self, forKey: .map)
        // `{}` or anything incomplete decodes as no base map.
        baseMap = try? c.decodeIfPresent(MapDetails.self, forKey: .baseMap)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(order, forKey: .order)
        try c.encode(relativePose, forKey: .relativePose)
        try c.encodeIfPresent(baseRelativePose, forKey: .baseRelativePose)
        try c.encodeIfPresent(map, forKey: .map)
        if let baseMap {
            try c.encode(baseMap, forKey: .baseMap)
        } else {
            try c.encode([String: String](), forKey: .baseMap)
        }
    }
}

/// `GET /v1/vps/map-set/{mapSetCodeOrId}`.
public struct MapSetResponse: Codable, Equatable, Sendable {
    /// The map set.
    public struct MapSet: Codable, Equatable, Sendable {
        public var id: String
        public var name: String
        public var accountId: String
        public var mapSetCode: String
        public var status: MapStatus
        public var createdAt: String
        public var updatedAt: String
        public var mapSetData: [MapSetEntry]
        enum CodingKeys: String, CodingKey {
            case id = "_id"
            case name, accountId, mapSetCode, status, createdAt, updatedAt, mapSetData
        }
        /// Builds a map set.
        public init(
            id: String, name: String, accountId: String, mapSetCode: String, status: MapStatus, createdAt: String,
            updatedAt: String, mapSetData: [MapSetEntry]
        ) {
            self.id = id
            self.name = name
            self.accountId = accountId
            self.mapSetCode = mapSetCode
            self.status = status
            self.createdAt = createdAt
            self.updatedAt = updatedAt
            self.mapSetData = mapSetData
        }
    }
    public var mapSet: MapSet
    /// Builds a response.
    public init(mapSet: MapSet) { self.mapSet = mapSet }
}

/// `GET /v1/vps/object/{objectCode}`.
public struct ObjectDetails: Codable, Equatable, Sendable {
    /// `{meshLink}`.
    public struct ObjectMesh: Codable, Equatable, Sendable {
        public var meshLink: String?
        /// Builds a mesh link.
        public init(meshLink: String?) { self.meshLink = meshLink }
    }
    public var id: String
    public var objectName: String
    public var objectCode: String
    public var status: MapStatus
    public var objectMesh: ObjectMesh?
    public var createdAt: String
    public var updatedAt: String
    enum CodingKeys: String, CodingKey {
        case id = "_id"
        case objectName, objectCode, status, objectMesh, createdAt, updatedAt
    }
    /// Builds object details.
    public init(
        id: String, objectName: String, objectCode: String, status: MapStatus, objectMesh: ObjectMesh?,
        createdAt: String,
        updatedAt: String
    ) {
        self.id = id
        self.objectName = objectName
        self.objectCode = objectCode
        self.status = status
        self.objectMesh = objectMesh
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// `GET /v1/file?key=`.
public struct FileURLResponse: Codable, Equatable, Sendable {
    public var url: String
    /// Builds a response.
    public init(url: String) { self.url = url }
}

/// `GET /v1/account/plan-details`.
public struct PlanDetails: Codable, Equatable, Sendable {
    public var apiCalls: Int
    public var storage: Int
    public var mapsCount: Int
    public var watermark: Bool
    /// Builds plan details.
    public init(apiCalls: Int, storage: Int, mapsCount: Int, watermark: Bool = false) {
        self.apiCalls = apiCalls
        self.storage = storage
        self.mapsCount = mapsCount
        self.watermark = watermark
    }
}
