import Foundation
import MultiSetSDK
import Testing
import VPSGeometry
import VPSMap

/// The SDK's GLB reader against the server's own GLB export (VPSMap.GLB) and its validator.
@Suite struct GLBReaderTests {
    /// Every kind of GLB the server exports (point clouds, coloured and plain triangle meshes, empty
    /// clouds) passes the validator and reads back with identical vertex and index counts and values.
    @Test func serverExportsReadBack() throws {
        var rng = SplitMix64(testName: "GLBReader.exports")
        for n in [0, 1, 7, 1000] {
            let positions = (0..<n).map { _ in
                Vec3(
                    Double.random(in: -5...5, using: &rng), Double.random(in: 0...3, using: &rng),
                    Double.random(in: -5...5, using: &rng))
            }
            let colors = (0..<(3 * n)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let cloud = GLB.pointCloud(positions: positions, colors: colors)
            _ = try GLB.validate(cloud)
            let model = try GLBReader.read(Data(cloud))
            #expect(model.vertexCount == n)
            #expect(model.indexCount == 0)
            if n > 0 {
                let p = try #require(model.primitives.first)
                #expect(p.mode == .points)
                for i in 0..<n {
                    #expect(
                        p.positions[i] == SIMD3(Float(positions[i].x), Float(positions[i].y), Float(positions[i].z)))
                    let c = try #require(p.colors)[i]
                    #expect(abs(c.x - Float(colors[3 * i]) / 255) < 1e-6 && c.w == 1)
                }
            }
            guard n >= 3 else { continue }
            let triangles = (0..<(3 * n)).map { _ in UInt32.random(in: 0..<UInt32(n), using: &rng) }
            for colored in [true, false] {
                let mesh = GLB.mesh(positions: positions, colors: colored ? colors : nil, triangles: triangles)
                _ = try GLB.validate(mesh)
                let read = try GLBReader.read(Data(mesh))
                #expect(read.vertexCount == n && read.indexCount == triangles.count)
                let p = try #require(read.primitives.first)
                #expect(p.mode == .triangles && p.indices == triangles && (p.colors != nil) == colored)
                #expect(p.triangleIndices == triangles)
                #expect(p.transform == .identity)
            }
        }
    }

    /// Node transforms (TRS and matrices) compose down the tree; strips and fans unroll.
    @Test func nodeTransformsAndModes() throws {
        let json = """
            {"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],
             "nodes":[{"translation":[1,2,3],"children":[1]},
                      {"rotation":[0,0.7071068,0,0.7071068],"scale":[2,2,2],"mesh":0},
                      {"matrix":[1,0,0,0, 0,1,0,0, 0,0,1,0, 9,9,9,1],"mesh":0}],
             "meshes":[{"primitives":[{"attributes":{"POSITION":0},"mode":5}]}],
             "accessors":[{"bufferView":0,"componentType":5126,"count":4,"type":"VEC3"}],
             "bufferViews":[{"buffer":0,"byteLength":48}],"buffers":[{"byteLength":48}]}
            """
        var bin: [UInt8] = []
        for v: Float in [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0] {
            withUnsafeBytes(of: v.bitPattern.littleEndian) { bin += $0 }
        }
        let model = try GLBReader.read(Self.glb(json: json, bin: bin))
        // Node 2 is not in the scene; node 1 is under node 0.
        #expect(model.primitives.count == 1)
        let p = try #require(model.primitives.first)
        // (1, 0, 0) scaled by 2, turned 90° about +Y → (0, 0, −2), then moved by (1, 2, 3).
        let moved = p.transform.point(SIMD3(1, 0, 0))
        #expect(abs(moved.x - 1) < 1e-5 && abs(moved.y - 2) < 1e-5 && abs(moved.z - 1) < 1e-5)
        #expect(p.triangleIndices == [0, 1, 2, 2, 1, 3])
    }

    /// Broken files are refused with a reason, never read out of bounds.
    @Test func brokenFilesAreRefused() throws {
        let good = GLB.mesh(
            positions: [Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)], colors: nil, triangles: [0, 1, 2])
        #expect((try? GLBReader.read(Data(good))) != nil)
        for cut in [0, 4, 12, 19, 40, good.count - 4] {
            #expect(throws: GLBReader.Failure.self) { try GLBReader.read(Data(good.prefix(cut))) }
        }
        let badIndex = GLB.mesh(positions: [Vec3(0, 0, 0)], colors: nil, triangles: [0, 0, 5])
        #expect(throws: GLBReader.Failure.invalid("index out of range")) { try GLBReader.read(Data(badIndex)) }
        let outside = """
            {"asset":{"version":"2.0"},"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],
             "nodes":[{"mesh":0}],"accessors":[{"bufferView":0,"componentType":5126,"count":9,"type":"VEC3"}],
             "bufferViews":[{"buffer":0,"byteLength":12}]}
            """
        #expect(throws: GLBReader.Failure.self) {
            try GLBReader.read(Self.glb(json: outside, bin: [UInt8](repeating: 0, count: 12)))
        }
        #expect(throws: GLBReader.Failure.self) { try GLBReader.read(Data("glTF".utf8)) }
    }

    /// A GLB from a JSON text and a binary chunk (both padded to 4 bytes).
    static func glb(json: String, bin: [UInt8]) -> Data {
        var j = [UInt8](json.utf8)
        while j.count % 4 != 0 { j.append(0x20) }
        var b = bin
        while b.count % 4 != 0 { b.append(0) }
        var out: [UInt8] = []
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { out += $0 } }
        u32(0x4654_6C67)
        u32(2)
        u32(12 + 8 + j.count + 8 + b.count)
        u32(j.count)
        u32(0x4E4F_534A)
        out += j
        u32(b.count)
        u32(0x004E_4942)
        out += b
        return Data(out)
    }
}
