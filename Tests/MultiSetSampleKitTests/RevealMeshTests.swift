import Foundation
import MultiSetSDK
import Testing
import VPSGeometry
import VPSMap

@testable import MultiSetSampleKit

/// The mesh preparation the RealityKit adapter draws from, on the server's own GLB exports.
@Suite struct RevealMeshTests {
    static func model(_ glb: [UInt8]) throws -> GLBModel { try GLBReader.read(Data(glb)) }

    /// Every triangle appears once, in the ring of its distance from the reveal centre; rings come in
    /// order with growing delays; colours round-trip through the palette.
    @Test func trianglesGoToTheirRingsWithTheirColours() throws {
        var rng = SplitMix64(seed: 15)
        var positions: [Vec3] = []
        var colors: [UInt8] = []
        var triangles: [UInt32] = []
        for i in 0..<200 {
            let c = Vec3(Double.random(in: -10...10, using: &rng), 0, Double.random(in: -10...10, using: &rng))
            positions += [c, c + Vec3(0.1, 0, 0), c + Vec3(0, 0, 0.1)]
            let rgb = (UInt8(i % 16 * 17), UInt8(255 - i % 16 * 17), UInt8(85))
            colors += [rgb.0, rgb.1, rgb.2, rgb.0, rgb.1, rgb.2, rgb.0, rgb.1, rgb.2]
            triangles += [UInt32(3 * i), UInt32(3 * i + 1), UInt32(3 * i + 2)]
        }
        let model = try Self.model(GLB.mesh(positions: positions, colors: colors, triangles: triangles))
        let mesh = RevealMesh(model: model, revealCenter: SIMD3(0, 0, 0), rings: 5, duration: 1)
        #expect(mesh.triangleCount == 200 && mesh.vertexCount == 600)
        #expect(mesh.rings.map(\.delay) == mesh.rings.map(\.delay).sorted())
        #expect(mesh.rings.first?.delay == 0 && (mesh.rings.last?.delay ?? 2) < 1)
        var previousFarthest: Float = -1
        for ring in mesh.rings {
            var nearest = Float.infinity, farthest: Float = 0
            for part in ring.parts {
                for k in stride(from: 0, to: part.indices.count, by: 3) {
                    let v = part.indices[k..<(k + 3)].map { part.positions[Int($0)] }
                    let d = RevealMesh.length((v[0] + v[1] + v[2]) / 3)
                    nearest = min(nearest, d)
                    farthest = max(farthest, d)
                    // The three corners share one palette texel, whose colour is the triangle's.
                    let uv = part.textureCoordinates[Int(part.indices[k])]
                    #expect(part.indices[k..<(k + 3)].allSatisfy { part.textureCoordinates[Int($0)] == uv })
                    let texel = Int(uv.x * Float(RevealMesh.paletteWidth))
                    #expect(uv.y == 0.5 && (0..<RevealMesh.paletteWidth).contains(texel))
                    #expect(mesh.palette[4 * texel + 2] == 85 && mesh.palette[4 * texel + 3] == 255)
                }
            }
            #expect(nearest >= previousFarthest)
            previousFarthest = farthest
        }
    }

    /// A point cloud (what the server exports for a map without a mesh) becomes one tetrahedron per
    /// point, faces wound outwards.
    @Test func pointsBecomeTetrahedra() throws {
        let positions = (0..<50).map { Vec3(Double($0), 1, 0) }
        let colors = [UInt8](repeating: 128, count: 150)
        let model = try Self.model(GLB.pointCloud(positions: positions, colors: colors))
        let mesh = RevealMesh(model: model, revealCenter: SIMD3(0, 1, 0), rings: 4, pointSize: 0.02)
        #expect(mesh.vertexCount == 200 && mesh.triangleCount == 200)
        for ring in mesh.rings {
            for part in ring.parts {
                for k in stride(from: 0, to: part.indices.count, by: 12) {
                    let corners = part.indices[k..<(k + 12)].map { part.positions[Int($0)] }
                    let center = corners.reduce(SIMD3<Float>(), +) / 12
                    for f in stride(from: 0, to: 12, by: 3) {
                        let (a, b, c) = (corners[f], corners[f + 1], corners[f + 2])
                        let n = RevealMesh.cross(b - a, c - a)
                        #expect((n * ((a + b + c) / 3 - center)).sum() > 0)
                    }
                    let edge = RevealMesh.length(corners[0] - corners[1])
                    #expect(abs(edge - 0.02) < 1e-5)
                }
            }
        }
    }

    /// Node transforms place the geometry; big meshes split into parts the renderer takes.
    @Test func transformsAndParts() throws {
        let moved = GLBTransform(
            translation: SIMD3<Float>(5, 0, 0), rotation: SIMD4<Float>(0, 0, 0, 1), scale: SIMD3<Float>(1, 1, 1))
        var primitive = GLBPrimitive(
            mode: .triangles, positions: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0)], normals: nil, colors: nil,
            indices: nil, transform: moved)
        var mesh = RevealMesh(model: GLBModel(primitives: [primitive]), revealCenter: .zero, rings: 1)
        #expect(mesh.rings[0].parts[0].positions[1] == SIMD3(6, 0, 0))
        #expect(mesh.rings[0].parts[0].normals[0] == SIMD3(0, 0, 1))
        let n = 110
        primitive.positions = (0..<(3 * n)).map { i -> SIMD3<Float> in SIMD3(Float(i % 7), 0, Float(i / 3)) }
        primitive.transform = GLBTransform.identity
        mesh = RevealMesh(
            model: GLBModel(primitives: [primitive]), revealCenter: .zero, rings: 1, maxVerticesPerPart: 300)
        #expect(mesh.rings[0].parts.count == 2)
        #expect(mesh.rings[0].parts.allSatisfy { $0.positions.count <= 300 })
        #expect(mesh.triangleCount == n)
    }
}
