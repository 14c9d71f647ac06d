import Foundation

#if canImport(simd)
import simd
#endif

/// A headless ``MultiSetScene`` that records every call (SPEC §3.4); the default on Linux and in
/// tests. Its members may be read from any thread.
public final class RecordingScene: @unchecked Sendable {
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

    /// Why the scene refused a mesh (``refusesMeshes``).
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        /// The reason given.
        public var description: String
    }

    private let lock = NSLock()
    private var recorded: [Call] = []
    private var root = Pose.identity
    private var meshCodes: [String] = []
    private var meshVertices: [String: Int] = [:]
    private var visible = true
    private var refusal: String?

    /// Creates an empty scene.
    public init() {}

    /// Every call so far, in order.
    public var calls: [Call] { lock.withLock { recorded } }
    /// The current map-root pose.
    public var mapRootPose: Pose { lock.withLock { root } }
    /// Map codes with a mesh in the scene.
    public var mapMeshCodes: [String] { lock.withLock { meshCodes } }
    /// Vertices of each map mesh in the scene.
    public var mapMeshVertexCounts: [String: Int] { lock.withLock { meshVertices } }
    /// Whether map meshes are shown.
    public var mapMeshesVisible: Bool { lock.withLock { visible } }
    /// While set, `addMapMesh` and `addObjectMesh` throw ``Refusal`` with this reason (a device whose
    /// renderer cannot take the mesh).
    public var refusesMeshes: String? {
        get { lock.withLock { refusal } }
        set { lock.withLock { refusal = newValue } }
    }

    private func record(_ call: Call, _ apply: () -> Void) {
        lock.withLock {
            recorded.append(call)
            apply()
        }
    }
}

extension RecordingScene: MultiSetScene {
    /// Records and applies.
    public nonisolated func setMapRootPose(_ pose: Pose) { record(.setMapRootPose(pose)) { root = pose } }
    /// Records and applies.
    public nonisolated func resetMapRoot() { record(.resetMapRoot) { root = .identity } }
    /// Records and applies; throws ``Refusal`` while ``refusesMeshes`` is set.
    public nonisolated func addMapMesh(_ mesh: MapMesh, visible: Bool, revealCenter: SIMD3<Float>) throws {
        if let reason = refusesMeshes { throw Refusal(description: reason) }
        record(.addMapMesh(mapCode: mesh.mapCode, bytes: mesh.glb.count, localPose: mesh.localPose, visible: visible)) {
            meshCodes.append(mesh.mapCode)
            meshVertices[mesh.mapCode] = mesh.model.vertexCount
            self.visible = visible
        }
    }
    /// Records and applies.
    public nonisolated func setMapMeshesVisible(_ visible: Bool) {
        record(.setMapMeshesVisible(visible)) { self.visible = visible }
    }
    /// Records and applies.
    public nonisolated func removeAllMapMeshes() {
        record(.removeAllMapMeshes) {
            meshCodes.removeAll()
            meshVertices.removeAll()
        }
    }
    /// Records.
    public nonisolated func placeObject(objectCode: String, pose: Pose) {
        record(.placeObject(objectCode: objectCode, pose: pose)) {}
    }
    /// Records; throws ``Refusal`` while ``refusesMeshes`` is set.
    public nonisolated func addObjectMesh(_ mesh: ObjectMesh) throws {
        if let reason = refusesMeshes { throw Refusal(description: reason) }
        record(.addObjectMesh(objectCode: mesh.objectCode, bytes: mesh.glb.count)) {}
    }
    /// Records.
    public nonisolated func removeAllObjectMeshes() { record(.removeAllObjectMeshes) {} }
}
