#if canImport(SwiftUI) && canImport(ARKit) && os(iOS)
import CoreGraphics
import Foundation
import Metal
import MultiSetSDK
import MultiSetSampleKit
import RealityKit
import UIKit

/// The SDK's `MultiSetScene` over RealityKit (SPEC §3.4): a map root carrying the gizmo and the map
/// meshes, and one anchor per tracked object. The SDK calls it on the main actor.
///
/// Meshes arrive parsed (`MapMesh.model`, read by the SDK's `GLBReader`); `RevealMesh` (sample kit,
/// tested on Linux) turns them into triangle parts with a palette texture and reveal rings, which
/// become `MeshDescriptor`s, `MeshResource`s and unlit `ModelEntity`s here. The rings are enabled one
/// after another from the reveal centre outwards: the seeds' radial reveal.
@available(iOS 17.0, *)
@MainActor
public final class RealityKitMapScene: MultiSetScene {
    /// Why a mesh could not be shown (reported by the SDK as `Mesh load failed: …`).
    public struct SceneError: Error, CustomStringConvertible {
        /// The reason.
        public var description: String
    }

    private let arView: ARView
    private let anchor: AnchorEntity
    private let mapRoot: Entity
    private var mapMeshes: [Entity] = []
    private var meshesVisible = true
    private var reveals: [Task<Void, Never>] = []
    private var objects: [String: AnchorEntity] = [:]

    /// A scene in `arView`, with a small gizmo (three axes) at the map origin.
    public init(arView: ARView) {
        self.arView = arView
        anchor = AnchorEntity(world: SIMD3<Float>(0, 0, 0))
        mapRoot = Entity()
        mapRoot.addChild(Self.gizmo())
        mapRoot.isEnabled = false
        anchor.addChild(mapRoot)
        arView.scene.addAnchor(anchor)
    }

    private static func gizmo() -> Entity {
        let root = Entity()
        let axes: [(SIMD3<Float>, UIColorRGB)] = [
            (SIMD3(0.1, 0.005, 0.005), UIColorRGB(r: 1, g: 0.2, b: 0.2)),
            (SIMD3(0.005, 0.1, 0.005), UIColorRGB(r: 0.2, g: 1, b: 0.2)),
            (SIMD3(0.005, 0.005, 0.1), UIColorRGB(r: 0.2, g: 0.4, b: 1)),
        ]
        for (size, color) in axes {
            var material = UnlitMaterial()
            material.color = .init(tint: color.uiColor)
            let bar = ModelEntity(mesh: .generateBox(size: size), materials: [material])
            bar.position = size / 2
            root.addChild(bar)
        }
        return root
    }

    private static func transform(_ pose: Pose) -> Transform {
        Transform(scale: SIMD3<Float>(repeating: 1), rotation: pose.rotation, translation: pose.position)
    }

    public func setMapRootPose(_ pose: Pose) {
        mapRoot.transform = Self.transform(pose)
        mapRoot.isEnabled = true
    }

    public func resetMapRoot() {
        mapRoot.transform = .identity
        mapRoot.isEnabled = false
    }

    public func addMapMesh(_ mesh: MapMesh, visible: Bool, revealCenter: SIMD3<Float>) throws {
        // The reveal centre is a world point: bring it into the mesh's frame (map root · local pose).
        let meshFromWorld = (mapRoot.transform.matrix * Self.transform(mesh.localPose).matrix).inverse
        let c = meshFromWorld * SIMD4<Float>(revealCenter.x, revealCenter.y, revealCenter.z, 1)
        let prepared = RevealMesh(model: mesh.model, revealCenter: SIMD3(c.x, c.y, c.z))
        guard prepared.triangleCount > 0 else { throw SceneError(description: "the mesh has no triangles or points") }
        let material = try Self.paletteMaterial(prepared.palette)
        let entity = Entity()
        entity.name = mesh.mapCode
        entity.transform = Self.transform(mesh.localPose)
        var rings: [(Double, [Entity])] = []
        for (r, ring) in prepared.rings.enumerated() {
            var parts: [Entity] = []
            for (p, part) in ring.parts.enumerated() {
                var descriptor = MeshDescriptor(name: "\(mesh.mapCode)-\(r)-\(p)")
                descriptor.positions = MeshBuffers.Positions(part.positions)
                descriptor.normals = MeshBuffers.Normals(part.normals)
                descriptor.textureCoordinates = MeshBuffers.TextureCoordinates(part.textureCoordinates)
                descriptor.primitives = .triangles(part.indices)
                let resource: MeshResource
                do {
                    resource = try MeshResource.generate(from: [descriptor])
                } catch {
                    throw SceneError(description: "RealityKit refused the mesh: \(error.localizedDescription)")
                }
                let model = ModelEntity(mesh: resource, materials: [material])
                model.isEnabled = false
                entity.addChild(model)
                parts.append(model)
            }
            rings.append((ring.delay, parts))
        }
        entity.isEnabled = visible && meshesVisible
        mapRoot.addChild(entity)
        mapMeshes.append(entity)
        reveal(rings)
    }

    /// Enables the rings at their delays (the nearest at once).
    private func reveal(_ rings: [(Double, [Entity])]) {
        let task = Task { @MainActor in
            for (delay, parts) in rings {
                if delay > 0 { try? await Task.sleep(for: .seconds(delay)) }
                if Task.isCancelled { return }
                for part in parts { part.isEnabled = true }
            }
        }
        reveals.append(task)
    }

    /// An unlit material sampling the one-row palette with nearest filtering and no mipmaps (mipmaps
    /// would average neighbouring palette entries).
    private static func paletteMaterial(_ rgba: [UInt8]) throws -> UnlitMaterial {
        let width = RevealMesh.paletteWidth
        guard let provider = CGDataProvider(data: Data(rgba) as CFData),
            let image = CGImage(
                width: width, height: 1, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: width * 4,
                space: CGColorSpace(name: CGColorSpace.sRGB) ?? CGColorSpaceCreateDeviceRGB(),
                bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.premultipliedLast.rawValue), provider: provider,
                decode: nil, shouldInterpolate: false, intent: .defaultIntent)
        else { throw SceneError(description: "the colour palette could not be built") }
        let options = TextureResource.CreateOptions(semantic: .color, mipmapsMode: .none)
        let texture: TextureResource
        if #available(iOS 18.0, *) {
            texture = try TextureResource(image: image, options: options)
        } else {
            texture = try TextureResource.generate(from: image, options: options)
        }
        let sampler = MTLSamplerDescriptor()
        sampler.minFilter = .nearest
        sampler.magFilter = .nearest
        sampler.mipFilter = .notMipmapped
        var material = UnlitMaterial()
        material.color = .init(
            tint: .white,
            texture: MaterialParameters.Texture(texture, sampler: MaterialParameters.Texture.Sampler(sampler)))
        return material
    }

    public func setMapMeshesVisible(_ visible: Bool) {
        meshesVisible = visible
        for mesh in mapMeshes { mesh.isEnabled = visible }
    }

    public func removeAllMapMeshes() {
        reveals.forEach { $0.cancel() }
        reveals = []
        mapMeshes.forEach { $0.removeFromParent() }
        mapMeshes = []
        meshesVisible = true
    }

    private func objectAnchor(_ code: String) -> AnchorEntity {
        if let existing = objects[code] { return existing }
        let entity = AnchorEntity(world: SIMD3<Float>(0, 0, 0))
        objects[code] = entity
        arView.scene.addAnchor(entity)
        return entity
    }

    public func placeObject(objectCode: String, pose: Pose) {
        objectAnchor(objectCode).transform = Self.transform(pose)
    }

    public func addObjectMesh(_ mesh: ObjectMesh) throws {
        let prepared = RevealMesh(model: mesh.model, revealCenter: SIMD3(0, 0, 0), rings: 1, duration: 0)
        guard prepared.triangleCount > 0 else { throw SceneError(description: "the object mesh is empty") }
        let material = try Self.paletteMaterial(prepared.palette)
        let holder = Entity()
        for ring in prepared.rings {
            for part in ring.parts {
                var descriptor = MeshDescriptor(name: mesh.objectCode)
                descriptor.positions = MeshBuffers.Positions(part.positions)
                descriptor.normals = MeshBuffers.Normals(part.normals)
                descriptor.textureCoordinates = MeshBuffers.TextureCoordinates(part.textureCoordinates)
                descriptor.primitives = .triangles(part.indices)
                holder.addChild(ModelEntity(mesh: try MeshResource.generate(from: [descriptor]), materials: [material]))
            }
        }
        objectAnchor(mesh.objectCode).addChild(holder)
    }

    public func removeAllObjectMeshes() {
        objects.values.forEach { $0.removeFromParent() }
        objects = [:]
    }
}

/// An sRGB colour for the gizmo (kept apart so the scene reads without UIKit names).
private struct UIColorRGB {
    var r: CGFloat, g: CGFloat, b: CGFloat
    var uiColor: UIColor { UIColor(red: r, green: g, blue: b, alpha: 1) }
}
#endif
