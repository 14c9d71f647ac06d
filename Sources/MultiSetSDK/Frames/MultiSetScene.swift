import Foundation

#if canImport(simd)
import simd
#endif

/// Receives every visual effect of the SDK (SPEC §3.4): the role of the `MultiSetAR` adapter.
///
/// The SDK calls a scene on the main actor, whatever its callback queue, in the order the effects
/// happen; with the default callback queue (the main queue) callbacks and scene calls interleave in
/// event order. A non-finite pose never reaches the scene. Gizmo and meshes are children of the map
/// root. Setting a scene (`MultiSet.setScene(_:)`) replays the current map root, meshes and objects
/// into it, so a screen opened again shows what the SDK holds.
@MainActor public protocol MultiSetScene: AnyObject {
    /// Places the map root (`worldFromMap`).
    func setMapRootPose(_ pose: Pose)
    /// Puts the map root back at identity and hides it (`resetSession()`, map change).
    func resetMapRoot()
    /// Adds a map mesh under the map root, revealed radially from `revealCenter` (world frame).
    ///
    /// - Throws: when the mesh cannot be shown; the SDK then reports `onMeshLoadError` instead of
    ///   `onMeshLoaded` and forgets the mesh.
    func addMapMesh(_ mesh: MapMesh, visible: Bool, revealCenter: SIMD3<Float>) throws
    /// Shows or hides every map mesh.
    func setMapMeshesVisible(_ visible: Bool)
    /// Removes every map mesh.
    func removeAllMapMeshes()
    /// Places a tracked object (`worldFromObject`).
    func placeObject(objectCode: String, pose: Pose)
    /// Adds an object's mesh at its object's placement.
    ///
    /// - Throws: when the mesh cannot be shown (logged).
    func addObjectMesh(_ mesh: ObjectMesh) throws
    /// Removes every object mesh.
    func removeAllObjectMeshes()
}
