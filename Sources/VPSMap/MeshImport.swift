import Foundation
import VPSGeometry

/// A triangle mesh read from a capture's OBJ or PLY file.
public struct TriangleMesh: Equatable, Sendable {
    /// Vertex positions, metres.
    public var positions: [Vec3]
    /// Optional per-vertex colours (3 bytes each).
    public var colors: [UInt8]?
    /// Vertex indices, three per triangle.
    public var triangles: [UInt32]

    /// Errors reading meshes.
    public enum ReadError: Error, Equatable, Sendable, CustomStringConvertible {
        case unsupported(String)
        case malformed(String)

        public var description: String {
            switch self {
            case .unsupported(let m): return "unsupported mesh: \(m)"
            case .malformed(let m): return "malformed mesh: \(m)"
            }
        }
    }

    /// The mesh as GLB (right-handed, +Y up, the capture's world frame).
    public var glb: [UInt8] { GLB.mesh(positions: positions, colors: colors, triangles: triangles) }

    /// Reads an OBJ (`v x y z [r g b]`, `f a b c ...` with optional `/vt/vn`; polygons are fanned)
    /// or a PLY (ASCII or binary little-endian; float/double x y z, optional uchar red green blue,
    /// face lists) by extension.
    public static func read(_ url: URL) throws(ReadError) -> TriangleMesh {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw .malformed("cannot read \(url.lastPathComponent)")
        }
        switch url.pathExtension.lowercased() {
        case "obj": return try parseOBJ(String(decoding: data, as: UTF8.self))
        case "ply": return try parsePLY([UInt8](data))
        default: throw .unsupported("\(url.lastPathComponent) is neither .obj nor .ply")
        }
    }

    static func parseOBJ(_ text: String) throws(ReadError) -> TriangleMesh {
        var positions: [Vec3] = []
        var colors: [UInt8] = []
        var triangles: [UInt32] = []
        for (n, raw) in text.split(separator: "\n").enumerated() {
            let f = raw.split(separator: " ", omittingEmptySubsequences: true)
            guard let tag = f.first else { continue }
            if tag == "v" {
                let v = f.dropFirst().compactMap { Double($0) }
                guard v.count >= 3, v.allSatisfy(\.isFinite) else { throw .malformed("OBJ line \(n + 1): bad vertex") }
                positions.append(Vec3(v[0], v[1], v[2]))
                if v.count >= 6 {
                    colors += v[3..<6].map { UInt8(max(0, min(255, ($0 <= 1 ? $0 * 255 : $0).rounded()))) }
                }
            } else if tag == "f" {
                var idx: [UInt32] = []
                for token in f.dropFirst() {
                    guard let first = token.split(separator: "/").first, let i = Int(first), i != 0 else {
                        throw .malformed("OBJ line \(n + 1): bad face")
                    }
                    let k = i > 0 ? i - 1 : positions.count + i
                    guard k >= 0, k < positions.count else {
                        throw .malformed("OBJ line \(n + 1): face index out of range")
                    }
                    idx.append(UInt32(k))
                }
                guard idx.count >= 3 else { throw .malformed("OBJ line \(n + 1): a face needs 3 vertices") }
                for k in 1..<(idx.count - 1) { triangles += [idx[0], idx[k], idx[k + 1]] }
            }
        }
        return TriangleMesh(
            positions: positions, colors: colors.count == 3 * positions.count && !colors.isEmpty ? colors : nil,
            triangles: triangles)
    }

    static func parsePLY(_ bytes: [UInt8]) throws(ReadError) -> TriangleMesh {
        guard let end = Multiline.find(Array("end_header\n".utf8), in: bytes) else {
            throw .malformed("PLY without end_header")
        }
        let header = String(decoding: bytes[0..<end], as: UTF8.self).split(separator: "\n").map {
            $0.split(separator: " ").map(String.init)
        }
        guard header.first == ["ply"], let format = header.first(where: { $0.first == "format" }), format.count >= 2
        else {
            throw .malformed("not a PLY header")
        }
        let binary = format[1] == "binary_little_endian"
        guard binary || format[1] == "ascii" else { throw .unsupported("PLY format \(format[1])") }
        var vertexCount = 0, faceCount = 0
        var vertexProps: [(String, String)] = []
        var faceTypes = ("uchar", "int")
        var element = ""
        for line in header {
            if line.first == "element", line.count == 3 {
                element = line[1]
                if element == "vertex" { vertexCount = Int(line[2]) ?? -1 }
                if element == "face" { faceCount = Int(line[2]) ?? -1 }
            } else if line.first == "property", element == "vertex", line.count == 3 {
                vertexProps.append((line[1], line[2]))
            } else if line.first == "property", element == "face", line.count == 5, line[1] == "list" {
                faceTypes = (line[2], line[3])
            }
        }
        guard vertexCount >= 0, faceCount >= 0, vertexCount < 50_000_000, faceCount < 100_000_000 else {
            throw .malformed("PLY counts")
        }
        let sizes = ["float": 4, "double": 8, "uchar": 1, "uint8": 1, "int": 4, "uint": 4, "float32": 4, "float64": 8]
        let hasColor = ["red", "green", "blue"].allSatisfy { c in vertexProps.contains { $0.1 == c } }
        var positions: [Vec3] = []
        var colors: [UInt8] = []
        var triangles: [UInt32] = []
        var reader = BinaryReader(Array(bytes[(end + 11)...]))
        var tokens =
            binary
            ? []
            : String(decoding: bytes[(end + 11)...], as: UTF8.self).split(whereSeparator: {
                $0 == " " || $0 == "\n" || $0 == "\r"
            }).map(String.init)
        var t = 0
        func next(_ type: String) throws(ReadError) -> Double {
            if binary {
                do {
                    switch type {
                    case "float", "float32": return Double(try reader.f32())
                    case "double", "float64": return try reader.f64()
                    case "uchar", "uint8": return Double(try reader.u8())
                    case "int": return Double(try reader.i32())
                    case "uint": return Double(try reader.u32())
                    default: throw ReadError.unsupported("PLY property type \(type)")
                    }
                } catch let e as ReadError {
                    throw e
                } catch {
                    throw .malformed("PLY data is truncated")
                }
            }
            guard t < tokens.count, let v = Double(tokens[t]) else { throw .malformed("PLY data is truncated") }
            t += 1
            return v
        }
        for _ in 0..<vertexCount {
            var xyz = Vec3.zero
            var rgb: [UInt8] = [0, 0, 0]
            for (type, name) in vertexProps {
                guard sizes[type] != nil else { throw .unsupported("PLY property type \(type)") }
                let v = try next(type)
                switch name {
                case "x": xyz.x = v
                case "y": xyz.y = v
                case "z": xyz.z = v
                case "red": rgb[0] = UInt8(max(0, min(255, v)))
                case "green": rgb[1] = UInt8(max(0, min(255, v)))
                case "blue": rgb[2] = UInt8(max(0, min(255, v)))
                default: break
                }
            }
            guard xyz.isFinite else { throw .malformed("PLY vertex is not finite") }
            positions.append(xyz)
            if hasColor { colors += rgb }
        }
        for _ in 0..<faceCount {
            let n = Int(try next(faceTypes.0))
            var idx: [UInt32] = []
            for _ in 0..<n {
                let v = try next(faceTypes.1)
                guard v >= 0, Int(v) < positions.count else { throw .malformed("PLY face index out of range") }
                idx.append(UInt32(v))
            }
            guard idx.count >= 3 else { throw .malformed("PLY face with fewer than 3 vertices") }
            for k in 1..<(idx.count - 1) { triangles += [idx[0], idx[k], idx[k + 1]] }
        }
        tokens = []
        return TriangleMesh(positions: positions, colors: hasColor ? colors : nil, triangles: triangles)
    }
}

/// Byte search helper.
enum Multiline {
    static func find(_ needle: [UInt8], in hay: [UInt8]) -> Int? {
        guard needle.count <= hay.count else { return nil }
        for i in 0...(hay.count - needle.count)
        where hay[i] == needle[0] && Array(hay[i..<(i + needle.count)]) == needle { return i }
        return nil
    }
}
