import Foundation

/// A map mesh the SDK hands to its scene (SPEC §11): the GLB as downloaded, its parsed content and
/// where it sits under the map root.
public struct MapMesh: Sendable, Equatable {
    /// The map the mesh belongs to.
    public var mapCode: String
    /// The GLB file (right-handed map frame, +Y up, metres).
    public var glb: Data
    /// Its primitives, read by ``GLBReader``.
    public var model: GLBModel
    /// The mesh's pose under the map root (identity for a single map; the map set's relative pose).
    public var localPose: Pose

    /// Creates a mesh.
    public init(mapCode: String, glb: Data, model: GLBModel, localPose: Pose) {
        self.mapCode = mapCode
        self.glb = glb
        self.model = model
        self.localPose = localPose
    }
}

/// A tracked object's mesh (SPEC §13.2).
public struct ObjectMesh: Sendable, Equatable {
    /// The object code.
    public var objectCode: String
    /// The GLB file (object frame).
    public var glb: Data
    /// Its primitives.
    public var model: GLBModel

    /// Creates a mesh.
    public init(objectCode: String, glb: Data, model: GLBModel) {
        self.objectCode = objectCode
        self.glb = glb
        self.model = model
    }
}
