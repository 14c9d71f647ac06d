#if canImport(SwiftUI) && canImport(ARKit) && os(iOS)
import Foundation
import MultiSetSDK
import RealityKit

/// The SDK's `MultiSetScene` over RealityKit: a map root (gizmo and meshes are its children), map
/// meshes and tracked objects (SPEC §3.4). Calls arrive on the main queue (the SDK's callback queue on
/// Apple platforms).
///
/// RealityKit has no glTF reader; `loadGLB` turns the server's GLB into an entity (plug in a glTF
/// loader; the default tries `Entity(contentsOf:)`, which reads USD).
@available(iOS 17.0, *)
public final class RealityKitMapScene: MultiSetScene, @unchecked Sendable {
    private let anchor: AnchorEntity
    private let mapRoot: Entity
    private var mapMeshes: [Entity] = []
    private var objects: [String: AnchorEntity] = [:]
    private let arView: ARView
    /// Turns GLB bytes into an entity.
    public var loadGLB: @MainActor (Data) throws -> Entity = { data in
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString + ".glb")
        try data.write(to: url)
        return try Entity.load(contentsOf: url)
    }

    /// A scene in `arView`, with a small gizmo at the map origin.
    @MainActor public init(arView: ARView) {
        self.arView = arView
        anchor = AnchorEntity(world: .zero)
        mapRoot = Entity()
        let gizmo = ModelEntity(
            mesh: .generateSphere(radius: 0.03), materials: [SimpleMaterial(color: .orange, isMetallic: false)])
        mapRoot.addChild(gizmo)
        mapRoot.isEnabled = false
        anchor.addChild(mapRoot)
        arView.scene.addAnchor(anchor)
    }

    private static func transform(_ pose: Pose) -> Transform {
        Transform(scale: SIMD3(repeating: 1), rotation: pose.rotation, translation: pose.position)
    }

    public func setMapRootPose(_ pose: Pose) {
        MainActor.assumeIsolated {
            mapRoot.transform = Self.transform(pose)
            mapRoot.isEnabled = true
        }
    }

    public func resetMapRoot() {
        MainActor.assumeIsolated {
            mapRoot.transform = .identity
            mapRoot.isEnabled = false
        }
    }

    public func addMapMesh(mapCode: String, glb: Data, localPose: Pose, visible: Bool, revealCenter: SIMD3<Float>) {
        MainActor.assumeIsolated {
            guard let mesh = try? loadGLB(glb) else { return }
            mesh.name = mapCode
            mesh.transform = Self.transform(localPose)
            mesh.isEnabled = visible
            mapRoot.addChild(mesh)
            mapMeshes.append(mesh)
        }
    }

    public func setMapMeshesVisible(_ visible: Bool) {
        MainActor.assumeIsolated { mapMeshes.forEach { $0.isEnabled = visible } }
    }

    public func removeAllMapMeshes() {
        MainActor.assumeIsolated {
            mapMeshes.forEach { $0.removeFromParent() }
            mapMeshes = []
        }
    }

    public func placeObject(objectCode: String, pose: Pose) {
        MainActor.assumeIsolated {
            let entity = objects[objectCode] ?? AnchorEntity(world: .zero)
            if objects[objectCode] == nil {
                objects[objectCode] = entity
                arView.scene.addAnchor(entity)
            }
            entity.transform = Self.transform(pose)
        }
    }

    public func addObjectMesh(objectCode: String, glb: Data) {
        MainActor.assumeIsolated {
            guard let mesh = try? loadGLB(glb) else { return }
            let entity = objects[objectCode] ?? AnchorEntity(world: .zero)
            if objects[objectCode] == nil {
                objects[objectCode] = entity
                arView.scene.addAnchor(entity)
            }
            entity.addChild(mesh)
        }
    }

    public func removeAllObjectMeshes() {
        MainActor.assumeIsolated {
            objects.values.forEach { $0.removeFromParent() }
            objects = [:]
        }
    }
}
#endif
