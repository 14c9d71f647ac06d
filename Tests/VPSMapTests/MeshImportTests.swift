import Foundation
import Testing
import VPSGeometry

@testable import VPSMap

@Suite struct MeshImportTests {
    static func write(_ text: String, _ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString)-\(name)")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test func objWithColoursAndPolygons() throws {
        let url = try Self.write(
            "# quad\nv 0 0 0 1 0 0\nv 1 0 0 0 1 0\nv 1 1 0 0 0 1\nv 0 1 0 1 1 1\nvt 0 0\nf 1/1 2/1 3/1 4/1\nf -4 -3 -2\n",
            "m.obj")
        defer { try? FileManager.default.removeItem(at: url) }
        let mesh = try TriangleMesh.read(url)
        #expect(mesh.positions.count == 4)
        #expect(mesh.triangles == [0, 1, 2, 0, 2, 3, 0, 1, 2])
        #expect(mesh.colors?.prefix(3) == [255, 0, 0])
        #expect((try? GLB.validate(mesh.glb)) != nil)
    }

    @Test func plyBinaryRoundTripsThroughOurWriterAndASCIIParses() throws {
        let positions = [Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0.5)]
        let binary = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString).ply")
        try Data(PLY.encode(positions: positions, colors: [1, 2, 3, 4, 5, 6, 7, 8, 9], triangles: [0, 1, 2])).write(
            to: binary)
        defer { try? FileManager.default.removeItem(at: binary) }
        let mesh = try TriangleMesh.read(binary)
        #expect(
            mesh.positions == positions && mesh.triangles == [0, 1, 2] && mesh.colors == [1, 2, 3, 4, 5, 6, 7, 8, 9])
        let ascii = try Self.write(
            "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n",
            "a.ply")
        defer { try? FileManager.default.removeItem(at: ascii) }
        #expect(try TriangleMesh.read(ascii).triangles == [0, 1, 2])
    }

    @Test func malformedMeshesThrow() throws {
        let cases = [
            ("v 0 0\n", "a.obj"), ("v 0 0 0\nf 1 2 3\n", "b.obj"), ("v nan 0 0\n", "c.obj"),
            (
                "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 0 0\n",
                "d.ply"
            ),
            ("ply\nformat binary_big_endian 1.0\nend_header\n", "e.ply"), ("not a mesh", "f.stl"),
        ]
        for (text, name) in cases {
            let url = try Self.write(text, name)
            defer { try? FileManager.default.removeItem(at: url) }
            #expect(throws: TriangleMesh.ReadError.self, "\(name)") { try TriangleMesh.read(url) }
        }
    }
}
