import Foundation

/// Reads binary glTF 2.0 (GLB): the header and chunks, then the default scene's node tree, each mesh
/// primitive's `POSITION`, `NORMAL`, `COLOR_0` and indices through their accessors, with every offset,
/// stride, count and index checked against the binary chunk. Pure Swift, so the SDK can check a map
/// mesh before a scene draws it.
///
/// Not read: textures and materials, skins, morph targets, animations, sparse accessors, external
/// buffers (a GLB's meshes live in its binary chunk).
public enum GLBReader {
    /// Why a file was refused.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Not a GLB 2.0 file, or inconsistent.
        case invalid(String)

        public var description: String {
            switch self {
            case .invalid(let why): "invalid GLB: \(why)"
            }
        }
    }

    /// Parses a GLB file.
    ///
    /// - Throws: ``Failure`` for anything not a valid GLB 2.0 mesh file.
    public static func read(_ data: Data) throws(Failure) -> GLBModel {
        let bytes = [UInt8](data)
        func u32(_ at: Int) throws(Failure) -> Int {
            guard at + 4 <= bytes.count else { throw .invalid("truncated") }
            return Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        guard bytes.count >= 12, try u32(0) == 0x4654_6C67 else { throw .invalid("no glTF magic") }
        guard try u32(4) == 2 else { throw .invalid("version \(try u32(4)), expected 2") }
        guard try u32(8) == bytes.count else { throw .invalid("header length \(try u32(8)) for \(bytes.count) bytes") }
        guard bytes.count >= 20 else { throw .invalid("no JSON chunk") }
        let jsonLength = try u32(12)
        guard try u32(16) == 0x4E4F_534A, jsonLength <= bytes.count - 20 else { throw .invalid("JSON chunk") }
        guard let json = JSONValue.parse(Data(bytes[20..<(20 + jsonLength)])), case .object = json else {
            throw .invalid("JSON does not parse")
        }
        var bin: ArraySlice<UInt8> = []
        var at = 20 + jsonLength
        while at + 8 <= bytes.count {
            let length = try u32(at), type = try u32(at + 4)
            guard at + 8 + length <= bytes.count else { throw .invalid("chunk past the end") }
            if type == 0x004E_4942 && bin.isEmpty { bin = bytes[(at + 8)..<(at + 8 + length)] }
            at += 8 + length
        }
        guard at == bytes.count else { throw .invalid("trailing bytes") }
        guard json["asset"]?["version"]?.string?.hasPrefix("2") == true else { throw .invalid("asset.version") }
        let document = GLBDocument(json: json, bin: Array(bin))
        return GLBModel(primitives: try document.primitives())
    }
}

/// A parsed glTF JSON document over its binary chunk.
struct GLBDocument {
    let json: JSONValue
    let bin: [UInt8]

    static func integer(_ value: JSONValue?) -> Int? {
        guard case .number(let n)? = value, n == n.rounded(), n >= 0, n < 1e9 else { return nil }
        return Int(n)
    }

    static func floats(_ value: JSONValue?, count: Int) -> [Float]? {
        guard let a = value?.array, a.count == count else { return nil }
        let v = a.compactMap { element -> Float? in
            guard case .number(let n) = element, n.isFinite else { return nil }
            return Float(n)
        }
        return v.count == count ? v : nil
    }

    /// Every primitive the default scene (else every root node) reaches, with world transforms.
    func primitives() throws(GLBReader.Failure) -> [GLBPrimitive] {
        let nodes = json["nodes"]?.array ?? []
        var roots: [Int] = []
        if let sceneList = json["scenes"]?.array, !sceneList.isEmpty {
            let index = Self.integer(json["scene"]) ?? 0
            guard sceneList.indices.contains(index) else { throw .invalid("scene \(index)") }
            roots = (sceneList[index]["nodes"]?.array ?? []).compactMap { Self.integer($0) }
        } else {
            var isChild = Set<Int>()
            for n in nodes { for c in n["children"]?.array ?? [] { if let i = Self.integer(c) { isChild.insert(i) } } }
            roots = nodes.indices.filter { !isChild.contains($0) }
        }
        var out: [GLBPrimitive] = []
        var visiting = Set<Int>()
        func visit(_ index: Int, parent: GLBTransform) throws(GLBReader.Failure) {
            guard nodes.indices.contains(index) else { throw .invalid("node \(index)") }
            guard visiting.insert(index).inserted else { throw .invalid("node cycle at \(index)") }
            defer { visiting.remove(index) }
            let node = nodes[index]
            let world = parent * (try Self.localTransform(node))
            if let mesh = Self.integer(node["mesh"]) { out += try meshPrimitives(mesh, transform: world) }
            for child in node["children"]?.array ?? [] {
                guard let c = Self.integer(child) else { throw .invalid("child of node \(index)") }
                try visit(c, parent: world)
            }
        }
        for r in roots { try visit(r, parent: .identity) }
        return out
    }

    static func localTransform(_ node: JSONValue) throws(GLBReader.Failure) -> GLBTransform {
        if let m = node["matrix"] {
            guard let v = floats(m, count: 16) else { throw .invalid("node matrix") }
            return GLBTransform(
                columns: (
                    SIMD4(v[0], v[1], v[2], v[3]), SIMD4(v[4], v[5], v[6], v[7]), SIMD4(v[8], v[9], v[10], v[11]),
                    SIMD4(v[12], v[13], v[14], v[15])
                ))
        }
        let t = node["translation"].map { floats($0, count: 3) } ?? [0, 0, 0]
        let r = node["rotation"].map { floats($0, count: 4) } ?? [0, 0, 0, 1]
        let s = node["scale"].map { floats($0, count: 3) } ?? [1, 1, 1]
        guard let t, let r, let s else { throw .invalid("node translation, rotation or scale") }
        var q = SIMD4<Float>(r[0], r[1], r[2], r[3])
        let n = (q * q).sum().squareRoot()
        guard n > 0.5 else { throw .invalid("node rotation is not a unit quaternion") }
        q /= n
        return GLBTransform(translation: SIMD3(t[0], t[1], t[2]), rotation: q, scale: SIMD3(s[0], s[1], s[2]))
    }

    func meshPrimitives(_ index: Int, transform: GLBTransform) throws(GLBReader.Failure) -> [GLBPrimitive] {
        guard let mesh = json["meshes"]?[index] else { throw .invalid("mesh \(index)") }
        var out: [GLBPrimitive] = []
        for p in mesh["primitives"]?.array ?? [] {
            let modeValue = p["mode"].map { Self.integer($0) } ?? 4
            guard let modeValue, let mode = GLBPrimitive.Mode(rawValue: modeValue) else { throw .invalid("mode") }
            guard let positionIndex = Self.integer(p["attributes"]?["POSITION"]) else {
                throw .invalid("primitive without POSITION")
            }
            let accessors = GLBAccessors(document: self)
            let positions = try accessors.vec3(positionIndex)
            var normals: [SIMD3<Float>]?
            if let n = Self.integer(p["attributes"]?["NORMAL"]) {
                normals = try accessors.vec3(n)
                guard normals?.count == positions.count else { throw .invalid("NORMAL count") }
            }
            var colors: [SIMD4<Float>]?
            if let c = Self.integer(p["attributes"]?["COLOR_0"]) {
                colors = try accessors.colors(c)
                guard colors?.count == positions.count else { throw .invalid("COLOR_0 count") }
            }
            var indices: [UInt32]?
            if let i = Self.integer(p["indices"]) {
                let values = try accessors.indices(i)
                guard values.allSatisfy({ Int($0) < positions.count }) else { throw .invalid("index out of range") }
                indices = values
            }
            out.append(
                GLBPrimitive(
                    mode: mode, positions: positions, normals: normals, colors: colors, indices: indices,
                    transform: transform))
        }
        return out
    }
}
