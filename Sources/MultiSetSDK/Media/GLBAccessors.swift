/// Reads glTF accessors from a GLB's binary chunk (glTF 2.0 §3.6): component types, normalization,
/// byte strides and offsets, each read checked against the chunk.
struct GLBAccessors {
    let document: GLBDocument

    private struct Layout {
        var count: Int
        var components: Int
        var componentType: Int
        var normalized: Bool
        /// Byte offset of element 0 in the chunk, and bytes between elements (nil without a buffer view).
        var start: Int?
        var stride: Int
    }

    private func layout(_ index: Int) throws(GLBReader.Failure) -> Layout {
        guard let a = document.json["accessors"]?[index] else { throw .invalid("accessor \(index)") }
        guard a["sparse"] == nil else { throw .invalid("sparse accessor \(index) not supported") }
        guard let count = GLBDocument.integer(a["count"]), let type = a["type"]?.string,
            let componentType = GLBDocument.integer(a["componentType"])
        else { throw .invalid("accessor \(index) fields") }
        guard let components = ["SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4][type] else {
            throw .invalid("accessor \(index) type \(type)")
        }
        guard let size = [5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4][componentType] else {
            throw .invalid("accessor \(index) component type \(componentType)")
        }
        let normalized = a["normalized"]?.bool ?? false
        guard let viewIndex = GLBDocument.integer(a["bufferView"]) else {
            return Layout(
                count: count, components: components, componentType: componentType, normalized: normalized, start: nil,
                stride: 0)
        }
        guard let view = document.json["bufferViews"]?[viewIndex],
            let length = GLBDocument.integer(view["byteLength"])
        else { throw .invalid("bufferView \(viewIndex)") }
        guard GLBDocument.integer(view["buffer"]) ?? 0 == 0 else { throw .invalid("external buffer") }
        let viewOffset = GLBDocument.integer(view["byteOffset"]) ?? 0
        let offset = GLBDocument.integer(a["byteOffset"]) ?? 0
        let element = components * size
        let stride = GLBDocument.integer(view["byteStride"]) ?? element
        guard stride >= element, offset % size == 0 else { throw .invalid("accessor \(index) alignment") }
        let needed = count == 0 ? 0 : offset + (count - 1) * stride + element
        guard needed <= length, viewOffset + length <= document.bin.count else {
            throw .invalid("accessor \(index) exceeds its buffer")
        }
        return Layout(
            count: count, components: components, componentType: componentType, normalized: normalized,
            start: viewOffset + offset, stride: stride)
    }

    /// Component `c` of element `i` as a float (normalized integers mapped to 0–1 or −1–1).
    private func value(_ l: Layout, _ i: Int, _ c: Int) -> Float {
        guard let start = l.start else { return 0 }
        let bin = document.bin
        let at = start + i * l.stride
        switch l.componentType {
        case 5126:
            let p = at + 4 * c
            let bits = UInt32(bin[p]) | UInt32(bin[p + 1]) << 8 | UInt32(bin[p + 2]) << 16 | UInt32(bin[p + 3]) << 24
            return Float(bitPattern: bits)
        case 5121:
            let v = Float(bin[at + c])
            return l.normalized ? v / 255 : v
        case 5120:
            let v = Float(Int8(bitPattern: bin[at + c]))
            return l.normalized ? max(v / 127, -1) : v
        case 5123:
            let p = at + 2 * c
            let v = Float(UInt16(bin[p]) | UInt16(bin[p + 1]) << 8)
            return l.normalized ? v / 65535 : v
        case 5122:
            let p = at + 2 * c
            let v = Float(Int16(bitPattern: UInt16(bin[p]) | UInt16(bin[p + 1]) << 8))
            return l.normalized ? max(v / 32767, -1) : v
        default:
            let p = at + 4 * c
            return Float(UInt32(bin[p]) | UInt32(bin[p + 1]) << 8 | UInt32(bin[p + 2]) << 16 | UInt32(bin[p + 3]) << 24)
        }
    }

    /// A VEC3 float accessor (positions, normals); every value finite.
    func vec3(_ index: Int) throws(GLBReader.Failure) -> [SIMD3<Float>] {
        let l = try layout(index)
        guard l.components == 3, l.componentType == 5126 || l.normalized else {
            throw .invalid("accessor \(index) is not VEC3 float")
        }
        var out: [SIMD3<Float>] = []
        out.reserveCapacity(l.count)
        for i in 0..<l.count {
            let v = SIMD3(value(l, i, 0), value(l, i, 1), value(l, i, 2))
            guard v.x.isFinite, v.y.isFinite, v.z.isFinite else { throw .invalid("accessor \(index) non-finite") }
            out.append(v)
        }
        return out
    }

    /// `COLOR_0`: VEC3 or VEC4, float or normalized unsigned byte/short; RGB gets alpha 1.
    func colors(_ index: Int) throws(GLBReader.Failure) -> [SIMD4<Float>] {
        let l = try layout(index)
        guard l.components == 3 || l.components == 4,
            l.componentType == 5126 || (l.normalized && (l.componentType == 5121 || l.componentType == 5123))
        else { throw .invalid("accessor \(index) is not a colour") }
        return (0..<l.count).map { i in
            let a: Float = l.components == 4 ? value(l, i, 3) : 1
            return SIMD4(value(l, i, 0), value(l, i, 1), value(l, i, 2), a).clamped(
                lowerBound: SIMD4(repeating: 0), upperBound: SIMD4(repeating: 1))
        }
    }

    /// Indices: SCALAR unsigned byte, short or int.
    func indices(_ index: Int) throws(GLBReader.Failure) -> [UInt32] {
        let l = try layout(index)
        guard l.components == 1, [5121, 5123, 5125].contains(l.componentType), !l.normalized else {
            throw .invalid("accessor \(index) is not an index accessor")
        }
        guard let start = l.start else { return [UInt32](repeating: 0, count: l.count) }
        let bin = document.bin
        return (0..<l.count).map { i in
            let p = start + i * l.stride
            switch l.componentType {
            case 5121: return UInt32(bin[p])
            case 5123: return UInt32(bin[p]) | UInt32(bin[p + 1]) << 8
            default:
                return UInt32(bin[p]) | UInt32(bin[p + 1]) << 8 | UInt32(bin[p + 2]) << 16 | UInt32(bin[p + 3]) << 24
            }
        }
    }
}
