import Foundation

#if canImport(simd)
import simd
#endif

/// A headless ``MultiSetScene`` that records every call (SPEC §3.4); the default on Linux and in
/// tests.
public final class RecordingScene: MultiSetScene, @unchecked Sendable {
    /// One recorded call.
    public enum Call: Equatable, Sendable {
        /// `setMapRootPose`.
        case setMapRootPose(Pose)
        /// `resetMapRoot`.
        case resetMapRoot
        /// `addMapMesh` (the GLB's byte count, not its bytes).
        case addMapMesh(mapCode: String, bytes: Int, localPose: Pose, visible: Bool)
        /// `setMapMeshesVisible`.
        case setMapMeshesVisible(Bool)
        /// `removeAllMapMeshes`.
        case removeAllMapMeshes
        /// `placeObject`.
        case placeObject(objectCode: String, pose: Pose)
        /// `addObjectMesh`.
        case addObjectMesh(objectCode: String, bytes: Int)
        /// `removeAllObjectMeshes`.
        case removeAllObjectMeshes
    }

    private let lock = NSLock()
    private var recorded: [Call] = []
    private var root = Pose.identity
    private var meshCodes: [String] = []
    private var visible = true

    /// Creates an empty scene.
    public init() {}

    /// Every call so far, in order.
    public var calls: [Call] { lock.withLock { recorded } }
    /// The current map-root pose.
    public var mapRootPose: Pose { lock.withLock { root } }
    /// Map codes with a mesh in the scene.
    public var mapMeshCodes: [String] { lock.withLock { meshCodes } }
    /// Whether map meshes are shown.
    public var mapMeshesVisible: Bool { lock.withLock { visible } }

    /// Records and applies.
    public func setMapRootPose(_ pose: Pose) { record(.setMapRootPose(pose)) { root = pose } }
    /// Records and applies.
    public func resetMapRoot() { record(.resetMapRoot) { root = .identity } }
    /// Records and applies.
    public func addMapMesh(mapCode: String, glb: Data, localPose: Pose, visible: Bool, revealCenter: SIMD3<Float>) {
        record(.addMapMesh(mapCode: mapCode, bytes: glb.count, localPose: localPose, visible: visible)) {
            meshCodes.append(mapCode)
            self.visible = visible
        }
    }
    /// Records and applies.
    public func setMapMeshesVisible(_ visible: Bool) {
        record(.setMapMeshesVisible(visible)) { self.visible = visible }
    }
    /// Records and applies.
    public func removeAllMapMeshes() { record(.removeAllMapMeshes) { meshCodes.removeAll() } }
    /// Records.
    public func placeObject(objectCode: String, pose: Pose) {
        record(.placeObject(objectCode: objectCode, pose: pose)) {}
    }
    /// Records.
    public func addObjectMesh(objectCode: String, glb: Data) {
        record(.addObjectMesh(objectCode: objectCode, bytes: glb.count)) {}
    }
    /// Records.
    public func removeAllObjectMeshes() { record(.removeAllObjectMeshes) {} }

    private func record(_ call: Call, _ apply: () -> Void) {
        lock.withLock {
            recorded.append(call)
            apply()
        }
    }
}
