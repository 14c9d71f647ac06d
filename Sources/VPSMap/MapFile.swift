import CZlib
import Foundation
import VPSFeatures
import VPSGeometry

/// The binary map file format (docs/FORMATS.md, "Map file").
///
/// Layout, little-endian: magic `MSVPSMAP`, u32 format version, u32 metadata length, metadata
/// JSON, then the point block (f64 xyz, u8 rgb, descriptors, and from version 2 the points' reference
/// patches), the keyframe block, the optional mesh, and a trailing CRC-32 of everything before it. Arrays are stored raw so loading is a few
/// bulk copies (≥ 200 MB/s; `multiset bench mapfile`).
public enum MapFile {
    /// The newest format version, which this build writes for maps with point patches (version 2:
    /// `patchSide` in the metadata and the patch block). Maps without patches are written as version 1,
    /// which older builds read.
    public static let formatVersion: UInt32 = 2
    /// The versions this build reads.
    public static let readableVersions: ClosedRange<UInt32> = 1...2
    static let magic = Array("MSVPSMAP".utf8)

    /// The JSON metadata block.
    struct Metadata: Codable {
        var code: String
        var name: String
        var featureConfig: FeatureConfigID
        var descriptorBytes: Int
        var pointCount: Int
        var keyframeCount: Int
        var meshBytes: Int
        var georeference: Georeference?
        var buildFunnel: MapBuildFunnel?
        /// Samples per side of the point patches (version 2; absent or 0: none).
        var patchSide: Int?
    }

    /// Serializes a map (validated first).
    public static func encode(_ map: MapData) throws(MapFileError) -> [UInt8] {
        try map.validate()
        let meta = Metadata(
            code: map.code, name: map.name, featureConfig: map.featureConfig, descriptorBytes: map.descriptorBytes,
            pointCount: map.pointCount, keyframeCount: map.keyframes.count, meshBytes: map.mesh?.count ?? 0,
            georeference: map.georeference, buildFunnel: map.buildFunnel,
            patchSide: map.pointPatches == nil ? nil : PointPatch.side)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let json = try? encoder.encode(meta) else { throw .invalid("metadata does not encode") }
        var w = BinaryWriter()
        w.reserve(
            64 + json.count + map.pointCount * (27 + map.descriptorBytes) + (map.pointPatches?.count ?? 0)
                + map.keyframes.reduce(0) { $0 + 200 + $1.keypoints.count * (12 + map.descriptorBytes) })
        w.append(contentsOf: magic)
        w.write(map.pointPatches == nil ? 1 : formatVersion)
        w.write(UInt32(json.count))
        w.append(contentsOf: json)
        for p in map.positions {
            w.f64(p.x)
            w.f64(p.y)
            w.f64(p.z)
        }
        w.append(contentsOf: map.colors)
        w.append(contentsOf: map.pointDescriptors)
        if let patches = map.pointPatches { w.append(contentsOf: patches) }
        for k in map.keyframes {
            w.write(k.id)
            let name = Array(k.name.utf8)
            w.write(UInt32(name.count))
            w.append(contentsOf: name)
            writeCamera(k.camera, &w)
            let q = k.camFromMap.rotation, t = k.camFromMap.translation
            for v in [q.x, q.y, q.z, q.w, t.x, t.y, t.z] { w.f64(v) }
            w.write(UInt32(k.keypoints.count))
            for p in k.keypoints {
                w.f32(p.x)
                w.f32(p.y)
            }
            w.append(contentsOf: k.descriptors)
            for i in k.pointIndices { w.i32(i) }
        }
        if let mesh = map.mesh { w.append(contentsOf: mesh) }
        let crc = checksum(w.bytes[...])
        w.write(crc)
        return w.bytes
    }

    /// Parses a map file.
    ///
    /// - Throws: `MapFileError` for a wrong magic or version, truncation, a checksum mismatch or
    ///   inconsistent content; never traps on any input.
    public static func decode(_ bytes: [UInt8]) throws(MapFileError) -> MapData {
        guard bytes.count >= 8, bytes.starts(with: magic) else {
            throw bytes.count < 8 && magic.starts(with: bytes) ? .truncated : .notAMapFile
        }
        var r = BinaryReader(bytes)
        do {
            _ = try r.readBytes(8)
            let version = try r.u32()
            guard readableVersions.contains(version) else { throw MapFileError.unsupportedVersion(version) }
            guard bytes.count >= 20 else { throw MapFileError.truncated }
            let stored =
                UInt32(bytes[bytes.count - 4]) | UInt32(bytes[bytes.count - 3]) << 8 | UInt32(bytes[bytes.count - 2])
                << 16
                | UInt32(bytes[bytes.count - 1]) << 24
            let metaLength = Int(try r.u32())
            guard metaLength <= r.remaining - 4 else { throw MapFileError.truncated }
            guard checksum(bytes[0..<(bytes.count - 4)]) == stored else { throw MapFileError.checksumMismatch }
            let json = try r.readBytes(metaLength)
            guard let meta = try? JSONDecoder().decode(Metadata.self, from: Data(json)) else {
                throw MapFileError.invalid("metadata")
            }
            let d = meta.descriptorBytes
            guard d > 0, d <= 4096, meta.pointCount >= 0, meta.keyframeCount >= 0, meta.meshBytes >= 0 else {
                throw MapFileError.invalid("metadata counts")
            }
            let n = try r.count(UInt64(meta.pointCount), minimumElementSize: 27 + d)
            let positions: [Vec3] = try readVec3(&r, n)
            let colors = Array(try r.readBytes(3 * n))
            let descriptors = Array(try r.readBytes(d * n))
            var patches: [UInt8]?
            if version >= 2, let side = meta.patchSide, side != 0 {
                guard side == PointPatch.side else { throw MapFileError.invalid("point patches of side \(side)") }
                patches = Array(try r.readBytes(PointPatch.count * n))
            }
            var keyframes: [Keyframe] = []
            let kfCount = try r.count(UInt64(meta.keyframeCount), minimumElementSize: 100)
            keyframes.reserveCapacity(kfCount)
            for _ in 0..<kfCount {
                let id = try r.u32()
                let nameLength = try r.count(UInt64(try r.u32()), minimumElementSize: 1)
                let name = String(decoding: try r.readBytes(nameLength), as: UTF8.self)
                let camera = try readCamera(&r)
                var v = [Double](repeating: 0, count: 7)
                for i in 0..<7 { v[i] = try r.f64() }
                // Stored as written (no renormalization), so a round trip is bit-exact.
                var pose = Rigid3()
                pose.rotation = Quaternion(x: v[0], y: v[1], z: v[2], w: v[3])
                pose.translation = Vec3(v[4], v[5], v[6])
                guard abs(pose.rotation.norm - 1) < 1e-6 else {
                    throw MapFileError.invalid("keyframe \(id) rotation is not unit")
                }
                let m = try r.count(UInt64(try r.u32()), minimumElementSize: 12 + d)
                let keypoints: [SIMD2<Float>] = try readRaw(&r, m, of: SIMD2<Float>.self, bytesEach: 8)
                let kd = Array(try r.readBytes(d * m))
                let indices: [Int32] = try readRaw(&r, m, of: Int32.self, bytesEach: 4)
                keyframes.append(
                    .init(
                        id: id, name: name, camera: camera, camFromMap: pose, keypoints: keypoints, descriptors: kd,
                        pointIndices: indices))
            }
            let mesh = meta.meshBytes > 0 ? Array(try r.readBytes(meta.meshBytes)) : nil
            guard r.remaining == 4 else {
                throw MapFileError.invalid("\(r.remaining - 4) unexpected bytes before the checksum")
            }
            var map = MapData(
                code: meta.code, name: meta.name, featureConfig: meta.featureConfig, descriptorBytes: d,
                positions: positions,
                colors: colors, pointDescriptors: descriptors, keyframes: keyframes, georeference: meta.georeference,
                mesh: mesh)
            map.buildFunnel = meta.buildFunnel
            map.pointPatches = patches
            try map.validate()
            return map
        } catch let e as MapFileError {
            throw e
        } catch is BinaryReader.ReadError {
            throw .truncated
        } catch {
            throw .invalid("\(error)")
        }
    }

    /// Writes a map atomically: a temporary file in the same folder, fsync, rename, fsync of the folder.
    public static func write(_ map: MapData, to url: URL) throws(MapFileError) {
        let bytes = try encode(map)
        try writeAtomically(bytes, to: url)
    }

    /// Reads and parses a map file.
    public static func read(from url: URL) throws(MapFileError) -> MapData {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw .io("\(url.path): \(error.localizedDescription)") }
        return try decode([UInt8](data))
    }

    /// Writes the map file and the GLB clients download (the map's stored mesh, else its coloured
    /// point cloud), each atomically.
    public static func write(_ map: MapData, to mapURL: URL, meshTo meshURL: URL) throws(MapFileError) {
        try write(map, to: mapURL)
        try writeAtomically(map.mesh ?? GLB.pointCloud(positions: map.positions, colors: map.colors), to: meshURL)
    }

    /// Durable atomic replacement of `url` by `bytes`: a temporary file in the same folder, fsync,
    /// rename, fsync of the folder. Temporaries are named `.NAME.tmp-…` (`DataDirectory` clears them).
    public static func writeAtomically(_ bytes: [UInt8], to url: URL) throws(MapFileError) {
        let folder = url.deletingLastPathComponent()
        let temp = folder.appendingPathComponent(
            ".\(url.lastPathComponent).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch {
            throw .io("cannot create \(folder.path)")
        }
        let fd = open(temp.path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard fd >= 0 else { throw .io("cannot create \(temp.path): errno \(errno)") }
        var ok = bytes.withUnsafeBytes { buf -> Bool in
            var offset = 0
            while offset < buf.count {
                let n = Foundation.write(fd, buf.baseAddress! + offset, buf.count - offset)
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
        ok = ok && fsync(fd) == 0
        close(fd)
        guard ok, rename(temp.path, url.path) == 0 else {
            unlink(temp.path)
            throw .io("cannot write \(url.path): errno \(errno)")
        }
        let dir = open(folder.path, O_RDONLY)
        if dir >= 0 {
            fsync(dir)
            close(dir)
        }
    }

    /// CRC-32 (zlib) of a byte range.
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBufferPointer { buf -> UInt32 in
            var crc = crc32(0, nil, 0)
            var offset = 0
            while offset < buf.count {
                let chunk = min(buf.count - offset, 1 << 30)
                crc = crc32(crc, buf.baseAddress! + offset, UInt32(chunk))
                offset += chunk
            }
            return UInt32(truncatingIfNeeded: crc)
        }
    }

    /// Bulk-reads `count` values stored raw (little-endian hosts only, checked at startup).
    static func readRaw<T>(_ r: inout BinaryReader, _ count: Int, of: T.Type, bytesEach: Int) throws -> [T] {
        precondition(MemoryLayout<T>.stride == bytesEach && UInt32(1).littleEndian == 1)
        let slice = try r.readBytes(count * bytesEach)
        return [T](unsafeUninitializedCapacity: count) { out, initialized in
            slice.withUnsafeBytes { raw in
                if count > 0 {
                    UnsafeMutableRawPointer(out.baseAddress!).copyMemory(
                        from: raw.baseAddress!, byteCount: count * bytesEach)
                }
            }
            initialized = count
        }
    }

    static func readVec3(_ r: inout BinaryReader, _ count: Int) throws -> [Vec3] {
        let flat: [Double] = try readRaw(&r, 3 * count, of: Double.self, bytesEach: 8)
        var out = [Vec3]()
        out.reserveCapacity(count)
        for i in 0..<count { out.append(Vec3(flat[3 * i], flat[3 * i + 1], flat[3 * i + 2])) }
        return out
    }

    /// Camera model numbers of the keyframe record, and their coefficient counts. Models 0–3 keep the
    /// record of the first maps (four coefficient slots, unused ones 0); models 4–10 write exactly
    /// their own coefficients.
    static let cameraKinds: [(kind: UInt32, coefficients: Int)] = [
        (0, 4), (1, 4), (2, 4), (3, 4), (4, 8), (5, 4), (6, 1), (7, 1), (8, 2), (9, 8), (10, 12),
    ]

    static func cameraKind(of d: LensDistortion) -> UInt32 {
        switch d {
        case .none: return 0
        case .simpleRadial: return 1
        case .radial: return 2
        case .opencv: return 3
        case .fullOpenCV: return 4
        case .openCVFisheye: return 5
        case .fov: return 6
        case .simpleRadialFisheye: return 7
        case .radialFisheye: return 8
        case .thinPrismFisheye: return 9
        case .radTanThinPrismFisheye: return 10
        }
    }

    static func writeCamera(_ c: Camera, _ w: inout BinaryWriter) {
        let kind = cameraKind(of: c.distortion)
        var d = c.distortion.coefficients
        let slots = cameraKinds[Int(kind)].coefficients
        d += [Double](repeating: 0, count: max(0, slots - d.count))
        w.write(kind)
        for v in [c.fx, c.fy, c.cx, c.cy] + d.prefix(slots) { w.f64(v) }
        w.write(UInt32(clamping: c.width))
        w.write(UInt32(clamping: c.height))
    }

    static func readCamera(_ r: inout BinaryReader) throws -> Camera {
        let kind = try r.u32()
        guard let spec = cameraKinds.first(where: { $0.kind == kind }) else {
            throw MapFileError.invalid("camera model \(kind)")
        }
        var v = [Double](repeating: 0, count: 4 + spec.coefficients)
        for i in v.indices { v[i] = try r.f64() }
        let width = Int(try r.u32()), height = Int(try r.u32())
        let c = Array(v[4...])
        let distortion: LensDistortion
        switch kind {
        case 0: distortion = .none
        case 1: distortion = .simpleRadial(k: c[0])
        case 2: distortion = .radial(k1: c[0], k2: c[1])
        case 3: distortion = .opencv(k1: c[0], k2: c[1], p1: c[2], p2: c[3])
        case 4: distortion = .fullOpenCV(k1: c[0], k2: c[1], p1: c[2], p2: c[3], k3: c[4], k4: c[5], k5: c[6], k6: c[7])
        case 5: distortion = .openCVFisheye(k1: c[0], k2: c[1], k3: c[2], k4: c[3])
        case 6: distortion = .fov(omega: c[0])
        case 7: distortion = .simpleRadialFisheye(k: c[0])
        case 8: distortion = .radialFisheye(k1: c[0], k2: c[1])
        case 9:
            distortion = .thinPrismFisheye(
                k1: c[0], k2: c[1], p1: c[2], p2: c[3], k3: c[4], k4: c[5], sx1: c[6], sy1: c[7])
        default: distortion = .radTanThinPrismFisheye(coefficients: c)
        }
        return Camera(fx: v[0], fy: v[1], cx: v[2], cy: v[3], width: width, height: height, distortion: distortion)
    }
}
