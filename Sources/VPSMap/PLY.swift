import VPSGeometry

/// PLY export (binary little-endian): vertices with colours, optional triangles.
public enum PLY {
    /// Encodes points (and optional triangles, 3 indices each) in the right-handed map frame.
    public static func encode(positions: [Vec3], colors: [UInt8], triangles: [UInt32] = []) -> [UInt8] {
        precondition(colors.count == 3 * positions.count, "3 colour bytes per point")
        var header = "ply\nformat binary_little_endian 1.0\ncomment MultiSet VPS map, right-handed, +Y up, metres\n"
        header += "element vertex \(positions.count)\nproperty float x\nproperty float y\nproperty float z\n"
        header += "property uchar red\nproperty uchar green\nproperty uchar blue\n"
        if !triangles.isEmpty {
            header += "element face \(triangles.count / 3)\nproperty list uchar uint vertex_indices\n"
        }
        header += "end_header\n"
        var w = BinaryWriter()
        w.append(contentsOf: Array(header.utf8))
        for (i, p) in positions.enumerated() {
            w.f32(Float(p.x))
            w.f32(Float(p.y))
            w.f32(Float(p.z))
            w.append(contentsOf: colors[(3 * i)..<(3 * i + 3)])
        }
        var k = 0
        while k + 2 < triangles.count {
            w.append(contentsOf: [3])
            w.write(triangles[k])
            w.write(triangles[k + 1])
            w.write(triangles[k + 2])
            k += 3
        }
        return w.bytes
    }
}
