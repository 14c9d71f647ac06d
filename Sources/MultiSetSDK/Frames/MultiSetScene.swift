import Foundation

#if canImport(simd)
import simd
#endif

/// Receives every visual effect of the SDK (SPEC §3.4): the role of the `MultiSetAR` adapter.
///
/// Calls arrive on the environment's `callbackQueue`, in order with the callbacks. A non-finite pose
/// never reaches the scene. Gizmo and meshes are children of the map root.
public protocol MultiSetScene: AnyObject {
    /// Places the map root (`worldFromMap`).
    func setMapRootPose(_ pose: Pose)
    /// Puts the map root back at identity (`resetSession()`, map change).
    func resetMapRoot()
    /// Adds a map mesh (glTF binary, right-handed map frame) under the map root.
    func addMapMesh(mapCode: String, glb: Data, localPose: Pose, visible: Bool, revealCenter: SIMD3<Float>)
    /// Shows or hides every map mesh.
    func setMapMeshesVisible(_ visible: Bool)
    /// Removes every map mesh.
    func removeAllMapMeshes()
    /// Places a tracked object (`worldFromObject`).
    func placeObject(objectCode: String, pose: Pose)
    /// Adds an object's mesh.
    func addObjectMesh(objectCode: String, glb: Data)
    /// Removes every object mesh.
    func removeAllObjectMeshes()
}
