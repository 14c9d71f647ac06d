import Testing
import VPSGeometry
import VPSTestSupport

@testable import VPSMap

@Suite struct MeshExportTests {
    @Test func pointCloudGLBIsValid() throws {
        var rng = SplitMix64(testName: "GLB.points")
        let positions = (0..<1001).map { _ in rng.vector(scale: 4) }
        let colors = (0..<3003).map { _ in UInt8(rng.nextInt(below: 256)) }
        let glb = GLB.pointCloud(positions: positions, colors: colors)
        #expect(glb.count % 4 == 0)
        let (json, bin) = try GLB.validate(glb)
        let accessors = json["accessors"] as? [[String: Any]]
        #expect(accessors?.first?["count"] as? Int == 1001)
        // First vertex survives as float32.
        let x = Float(bitPattern: UInt32(bin[0]) | UInt32(bin[1]) << 8 | UInt32(bin[2]) << 16 | UInt32(bin[3]) << 24)
        #expect(abs(Double(x) - positions[0].x) < 1e-6)
        let maxes = (accessors?.first?["max"] as? [Double]) ?? []
        #expect(maxes.count == 3 && abs(maxes[1] - positions.map(\.y).max()!) < 1e-5)
    }

    @Test func triangleMeshAndBadGLBs() throws {
        let glb = GLB.mesh(
            positions: [Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)], colors: nil, triangles: [0, 1, 2])
        let (json, _) = try GLB.validate(glb)
        let prim = ((json["meshes"] as? [[String: Any]])?.first?["primitives"] as? [[String: Any]])?.first
        #expect(prim?["mode"] as? Int == 4)
        #expect(throws: GLB.GLBError.self) { try GLB.validate(Array(glb.prefix(glb.count - 4))) }
        var wrong = glb
        wrong[0] = 0
        #expect(throws: GLB.GLBError.self) { try GLB.validate(wrong) }
        #expect(throws: GLB.GLBError.self) { try GLB.validate([]) }
        let empty = GLB.pointCloud(positions: [], colors: [])
        #expect((try? GLB.validate(empty)) != nil)
    }

    @Test func plyHeaderAndSize() {
        let ply = PLY.encode(
            positions: [Vec3(1, 2, 3), Vec3(4, 5, 6)], colors: [1, 2, 3, 4, 5, 6], triangles: [0, 1, 1])
        let text = String(decoding: ply.prefix(400), as: UTF8.self)
        #expect(text.hasPrefix("ply\nformat binary_little_endian 1.0\n"))
        #expect(text.contains("element vertex 2\n") && text.contains("element face 1\n"))
        let headerLength = text.range(of: "end_header\n")!.upperBound.utf16Offset(in: text)
        #expect(ply.count == headerLength + 2 * 15 + 13)
    }
}
