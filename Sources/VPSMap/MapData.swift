import VPSFeatures
import VPSGeometry

/// Identifies the local-feature configuration a map was built with; a query is matched only
/// under the same name and version.
public struct FeatureConfigID: Codable, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Stable name, e.g. `orb-2000`.
    public var name: String
    /// Version of the extractor settings under that name.
    public var version: Int

    /// Builds an identifier.
    public init(name: String, version: Int) {
        self.name = name
        self.version = version
    }

    public var description: String { "\(name) v\(version)" }
}

/// A keyframe of a map: one mapping image's camera, pose and local features.
public struct Keyframe: Equatable, Sendable {
    /// Keyframe id, unique within the map.
    public var id: UInt32
    /// Source image name (for diagnostics and leave-one-out evaluation).
    public var name: String
    /// Intrinsics of the image the features were extracted from.
    public var camera: Camera
    /// `camFromMap` in the computer-vision camera convention, map frame right-handed +Y up.
    public var camFromMap: Rigid3
    /// Keypoint positions in pixels (`Camera` convention).
    public var keypoints: [SIMD2<Float>]
    /// Descriptors, `descriptorBytes` per keypoint, contiguous.
    public var descriptors: [UInt8]
    /// For each keypoint, the index of its map point, or −1.
    public var pointIndices: [Int32]

    /// Builds a keyframe.
    public init(
        id: UInt32, name: String, camera: Camera, camFromMap: Rigid3, keypoints: [SIMD2<Float>], descriptors: [UInt8],
        pointIndices: [Int32]
    ) {
        self.id = id
        self.name = name
        self.camera = camera
        self.camFromMap = camFromMap
        self.keypoints = keypoints
        self.descriptors = descriptors
        self.pointIndices = pointIndices
    }
}

/// A localization map: 3D points with descriptors, keyframes, and optional georeference and mesh.
///
/// Frames: the map frame is the right-handed, +Y-up frame of the captures it was built from
/// (metres); the API's left-handed frame is the same space with X negated (SPEC §15.2).
public struct MapData: Equatable, Sendable {
    /// The map code (`MAP_` + 12 characters).
    public var code: String
    /// Display name.
    public var name: String
    /// The feature configuration of every descriptor in the map.
    public var featureConfig: FeatureConfigID
    /// Bytes per descriptor (32 for ORB, 512 for float SIFT).
    public var descriptorBytes: Int
    /// Point positions in the map frame, metres.
    public var positions: [Vec3]
    /// Point colours, RGB, 3 bytes per point.
    public var colors: [UInt8]
    /// One representative descriptor per point, `descriptorBytes` each, contiguous.
    public var pointDescriptors: [UInt8]
    /// Each point's reference patch (`PointPatch`: its reference view's keypoint patch,
    /// `PointPatch.count` bytes each, contiguous; all one value for a point without one), which
    /// queries align their keypoints to (`PatchAlignment`). Nil for maps without patches (format
    /// version 1, or built before them).
    public var pointPatches: [UInt8]?
    /// Keyframes.
    public var keyframes: [Keyframe]
    /// Where the map sits on the Earth, if known.
    public var georeference: Georeference?
    /// A GLB mesh in the right-handed map frame, if any.
    public var mesh: [UInt8]?
    /// What each stage of the build kept and dropped (nil for maps built before it was recorded,
    /// or not by `MapBuilder.build(frames:…)`).
    public var buildFunnel: MapBuildFunnel?

    /// Builds a map.
    public init(
        code: String, name: String, featureConfig: FeatureConfigID, descriptorBytes: Int, positions: [Vec3] = [],
        colors: [UInt8] = [], pointDescriptors: [UInt8] = [], keyframes: [Keyframe] = [],
        georeference: Georeference? = nil, mesh: [UInt8]? = nil
    ) {
        self.code = code
        self.name = name
        self.featureConfig = featureConfig
        self.descriptorBytes = descriptorBytes
        self.positions = positions
        self.colors = colors
        self.pointDescriptors = pointDescriptors
        self.keyframes = keyframes
        self.georeference = georeference
        self.mesh = mesh
    }

    /// Number of points.
    public var pointCount: Int { positions.count }

    /// Checks internal consistency: array sizes, finite values, point indices in range.
    public func validate() throws(MapFileError) {
        guard descriptorBytes > 0, descriptorBytes <= 4096 else { throw .invalid("descriptor size \(descriptorBytes)") }
        guard colors.count == 3 * positions.count else { throw .invalid("colour count does not match points") }
        guard pointDescriptors.count == descriptorBytes * positions.count else {
            throw .invalid("point descriptor bytes do not match points")
        }
        guard positions.allSatisfy(\.isFinite) else { throw .invalid("a point position is not finite") }
        if let patches = pointPatches, patches.count != PointPatch.count * positions.count {
            throw .invalid("point patch bytes do not match points")
        }
        var ids = Set<UInt32>()
        for k in keyframes {
            guard ids.insert(k.id).inserted else { throw .invalid("duplicate keyframe id \(k.id)") }
            guard k.camFromMap.isFinite else { throw .invalid("keyframe \(k.id) pose is not finite") }
            do { try k.camera.validate() } catch { throw .invalid("keyframe \(k.id) camera: \(error)") }
            guard k.pointIndices.count == k.keypoints.count, k.descriptors.count == descriptorBytes * k.keypoints.count
            else {
                throw .invalid("keyframe \(k.id) feature arrays disagree")
            }
            guard k.pointIndices.allSatisfy({ $0 >= -1 && Int($0) < positions.count }) else {
                throw .invalid("keyframe \(k.id) names a point that does not exist")
            }
        }
        if let g = georeference, !g.isValid { throw .invalid("georeference is not valid") }
    }
}
