import Foundation
import VPSGeometry

/// Binary glTF 2.0 (GLB) writing and validation for map meshes and point clouds.
///
/// Geometry is written in the right-handed map frame (+Y up, metres), which is glTF's own
/// convention (SPEC §15.2: meshes are glTF in the right-handed map frame).
public enum GLB {
    /// Errors of `validate`.
    public enum GLBError: Error, Equatable, Sendable {
        /// Not GLB, wrong version, or inconsistent lengths or chunks.
        case invalid(String)
    }

    /// A coloured point cloud (primitive mode POINTS) with POSITION (float32 vec3) and COLOR_0
    /// (normalized uint8 vec4).
    public static func pointCloud(positions: [Vec3], colors: [UInt8]) -> [UInt8] {
        precondition(colors.count == 3 * positions.count, "3 colour bytes per point")
        return mesh(positions: positions, colors: colors, triangles: nil)
    }

    /// A triangle mesh (or a point cloud when `triangles` is nil) with optional per-vertex colours.
    public static func mesh(positions: [Vec3], colors: [UInt8]?, triangles: [UInt32]?) -> [UInt8] {
        var bin = BinaryWriter()
        var lo = Vec3(repeating: .infinity), hi = Vec3(repeating: -.infinity)
        for p in positions {
            bin.f32(Float(p.x))
            bin.f32(Float(p.y))
            bin.f32(Float(p.z))
            lo = pointwiseMin(lo, p)
            hi = pointwiseMax(hi, p)
        }
        if positions.isEmpty {
            lo = .zero
            hi = .zero
        }
        let positionBytes = bin.bytes.count
        var attributes: [String: Int] = ["POSITION": 0]
        var accessors: [[String: Any]] = [
            [
                "bufferView": 0, "componentType": 5126, "count": positions.count, "type": "VEC3",
                "min": [Float(lo.x), Float(lo.y), Float(lo.z)].map(Double.init),
                "max": [Float(hi.x), Float(hi.y), Float(hi.z)].map(Double.init),
            ]
        ]
        var views: [[String: Any]] = [["buffer": 0, "byteOffset": 0, "byteLength": positionBytes, "target": 34962]]
        if let colors {
            let offset = bin.bytes.count
            for i in 0..<positions.count {
                bin.append(contentsOf: [colors[3 * i], colors[3 * i + 1], colors[3 * i + 2], 255])
            }
            views.append(["buffer": 0, "byteOffset": offset, "byteLength": bin.bytes.count - offset, "target": 34962])
            accessors.append([
                "bufferView": 1, "componentType": 5121, "normalized": true, "count": positions.count, "type": "VEC4",
            ])
            attributes["COLOR_0"] = 1
        }
        var primitive: [String: Any] = ["attributes": attributes, "mode": triangles == nil ? 0 : 4]
        if let triangles {
            let offset = bin.bytes.count
            for i in triangles { bin.write(i) }
            views.append(["buffer": 0, "byteOffset": offset, "byteLength": bin.bytes.count - offset, "target": 34963])
            accessors.append([
                "bufferView": views.count - 1, "componentType": 5125, "count": triangles.count, "type": "SCALAR",
            ])
            primitive["indices"] = accessors.count - 1
        }
        while bin.bytes.count % 4 != 0 { bin.append(contentsOf: [0]) }
        let json: [String: Any] = [
            "asset": ["version": "2.0", "generator": "MultiSet VPS"],
            "scene": 0, "scenes": [["nodes": [0]]], "nodes": [["mesh": 0, "name": "map"]],
            "meshes": [["primitives": [primitive]]], "accessors": accessors, "bufferViews": views,
            "buffers": [["byteLength": bin.bytes.count]],
        ]
        var jsonBytes = [UInt8]((try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])) ?? Data())
        while jsonBytes.count % 4 != 0 { jsonBytes.append(0x20) }
        var out = BinaryWriter()
        out.write(UInt32(0x4654_6C67))  // "glTF"
        out.write(UInt32(2))
        out.write(UInt32(12 + 8 + jsonBytes.count + 8 + bin.bytes.count))
        out.write(UInt32(jsonBytes.count))
        out.write(UInt32(0x4E4F_534A))  // "JSON"
        out.append(contentsOf: jsonBytes)
        out.write(UInt32(bin.bytes.count))
        out.write(UInt32(0x004E_4942))  // "BIN\0"
        out.append(contentsOf: bin.bytes)
        return out.bytes
    }

    /// Checks a GLB: header, chunk layout, and that every accessor fits its buffer view and every
    /// view its buffer. Returns the JSON object and the binary chunk.
    public static func validate(_ bytes: [UInt8]) throws(GLBError) -> (json: [String: Any], bin: [UInt8]) {
        var r = BinaryReader(bytes)
        do {
            guard try r.u32() == 0x4654_6C67 else { throw GLBError.invalid("magic") }
            guard try r.u32() == 2 else { throw GLBError.invalid("version") }
            guard Int(try r.u32()) == bytes.count else { throw GLBError.invalid("total length") }
            let jsonLength = Int(try r.u32())
            guard try r.u32() == 0x4E4F_534A, jsonLength % 4 == 0 else { throw GLBError.invalid("JSON chunk") }
            let jsonBytes = try r.readBytes(jsonLength)
            guard let json = (try? JSONSerialization.jsonObject(with: Data(jsonBytes))) as? [String: Any] else {
                throw GLBError.invalid("JSON")
            }
            var bin: [UInt8] = []
            if !r.isAtEnd {
                let binLength = Int(try r.u32())
                guard try r.u32() == 0x004E_4942 else { throw GLBError.invalid("BIN chunk type") }
                bin = Array(try r.readBytes(binLength))
            }
            guard r.isAtEnd else { throw GLBError.invalid("trailing bytes") }
            let buffers = json["buffers"] as? [[String: Any]] ?? []
            guard buffers.count <= 1, (buffers.first?["byteLength"] as? Int ?? 0) <= bin.count else {
                throw GLBError.invalid("buffer length")
            }
            let views = json["bufferViews"] as? [[String: Any]] ?? []
            for v in views {
                let offset = v["byteOffset"] as? Int ?? 0, length = v["byteLength"] as? Int ?? -1
                guard offset >= 0, length >= 0, offset + length <= bin.count else {
                    throw GLBError.invalid("bufferView out of range")
                }
            }
            for a in json["accessors"] as? [[String: Any]] ?? [] {
                guard let view = a["bufferView"] as? Int, views.indices.contains(view), let count = a["count"] as? Int,
                    let type = a["type"] as? String, let component = a["componentType"] as? Int
                else { throw GLBError.invalid("accessor") }
                let components = ["SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4][type] ?? 0
                let size = [5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4][component] ?? 0
                guard components > 0, size > 0, count * components * size <= views[view]["byteLength"] as? Int ?? 0
                else {
                    throw GLBError.invalid("accessor exceeds its bufferView")
                }
            }
            return (json, bin)
        } catch let e as GLBError {
            throw e
        } catch {
            throw .invalid("truncated")
        }
    }
}
