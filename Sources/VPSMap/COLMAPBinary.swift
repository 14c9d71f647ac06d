import Foundation
import VPSGeometry

/// Reads and writes COLMAP's binary format (`cameras.bin`, `images.bin`, `points3D.bin`),
/// little-endian as COLMAP writes it.
///
/// `cameras.bin`: u64 count; per camera u32 id, i32 model id, u64 width, u64 height, f64 params.
/// `images.bin`: u64 count; per image u32 id, f64 qw qx qy qz tx ty tz, u32 camera id, NUL-terminated
/// name, u64 keypoint count, per keypoint f64 x, f64 y, u64 point id (2⁶⁴−1 when untriangulated).
/// `points3D.bin`: u64 count; per point u64 id, f64 xyz, u8 rgb, f64 error, u64 track length, per
/// element u32 image id, u32 keypoint index.
public enum COLMAPBinary {
    static let invalidPointID = UInt64.max

    /// Reads a model from a folder holding the three binary files.
    public static func read(from folder: URL) throws(COLMAPError) -> COLMAPModel {
        let model = COLMAPModel(
            cameras: try parseCameras(try load(folder, "cameras.bin")),
            images: try parseImages(try load(folder, "images.bin")),
            points: try parsePoints(try load(folder, "points3D.bin")))
        try model.validate()
        return model
    }

    /// Writes the model's three binary files into `folder` (created if needed).
    public static func write(_ model: COLMAPModel, to folder: URL) throws(COLMAPError) {
        var cameras = BinaryWriter()
        cameras.write(UInt64(model.cameras.count))
        for c in model.cameras {
            let (name, params) = COLMAPModel.written(c)
            let id = COLMAPModel.models.first { $0.name == name }?.id ?? 1
            cameras.write(c.id)
            cameras.i32(id)
            cameras.write(UInt64(c.camera.width))
            cameras.write(UInt64(c.camera.height))
            for p in params { cameras.f64(p) }
        }
        var images = BinaryWriter()
        images.write(UInt64(model.images.count))
        for im in model.images {
            images.write(im.id)
            let q = im.camFromWorld.rotation, t = im.camFromWorld.translation
            for v in [q.w, q.x, q.y, q.z, t.x, t.y, t.z] { images.f64(v) }
            images.write(im.cameraID)
            images.cString(im.name)
            images.write(UInt64(im.points2D.count))
            for p in im.points2D {
                images.f64(p.xy.x)
                images.f64(p.xy.y)
                images.write(p.point3DID ?? invalidPointID)
            }
        }
        var points = BinaryWriter()
        points.write(UInt64(model.points.count))
        for p in model.points {
            points.write(p.id)
            points.f64(p.position.x)
            points.f64(p.position.y)
            points.f64(p.position.z)
            points.append(contentsOf: [p.color.0, p.color.1, p.color.2])
            points.f64(p.error)
            points.write(UInt64(p.track.count))
            for t in p.track {
                points.write(t.imageID)
                points.write(t.point2DIndex)
            }
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(cameras.bytes).write(to: folder.appendingPathComponent("cameras.bin"), options: .atomic)
            try Data(images.bytes).write(to: folder.appendingPathComponent("images.bin"), options: .atomic)
            try Data(points.bytes).write(to: folder.appendingPathComponent("points3D.bin"), options: .atomic)
        } catch {
            throw .io("\(error)")
        }
    }

    static func load(_ folder: URL, _ name: String) throws(COLMAPError) -> [UInt8] {
        let url = folder.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else { throw .missingFile(name) }
        do { return [UInt8](try Data(contentsOf: url)) } catch { throw .io("\(name): \(error)") }
    }

    /// Runs a parse step, turning reader errors into `COLMAPError.malformed` naming the file.
    static func parse<T>(
        _ file: String, _ body: (inout BinaryReader) throws(BinaryReader.ReadError) -> T, _ bytes: [UInt8]
    ) throws(COLMAPError) -> T {
        var reader = BinaryReader(bytes)
        do {
            let value = try body(&reader)
            guard reader.isAtEnd else { throw COLMAPError.malformed("\(file): \(reader.remaining) trailing bytes") }
            return value
        } catch let e as BinaryReader.ReadError {
            throw .malformed("\(file): \(e)")
        } catch let e as COLMAPError {
            throw e
        } catch {
            throw .malformed("\(file): \(error)")
        }
    }

    static func parseCameras(_ bytes: [UInt8]) throws(COLMAPError) -> [COLMAPModel.CameraEntry] {
        var raw: [(UInt32, Int32, UInt64, UInt64, [Double])] = []
        let cameras: [(UInt32, Int32, UInt64, UInt64, [Double])] = try parse(
            "cameras.bin",
            { r throws(BinaryReader.ReadError) in
                let n = try r.count(try r.u64(), minimumElementSize: 24)
                for _ in 0..<n {
                    let id = try r.u32(), model = try r.i32(), w = try r.u64(), h = try r.u64()
                    let count = COLMAPModel.models.first { $0.id == model }?.params ?? 0
                    var params: [Double] = []
                    for _ in 0..<count { params.append(try r.f64()) }
                    raw.append((id, model, w, h, params))
                    if count == 0 { break }  // unknown model: stop; reported below
                }
                return raw
            }, bytes)
        var out: [COLMAPModel.CameraEntry] = []
        for (id, model, w, h, params) in cameras {
            guard let spec = COLMAPModel.models.first(where: { $0.id == model }) else {
                throw .unsupportedCameraModel("id \(model)")
            }
            guard w > 0, h > 0, w < 1 << 20, h < 1 << 20 else {
                throw .malformed("cameras.bin: camera \(id) has size \(w)×\(h)")
            }
            out.append(
                .init(
                    id: id,
                    camera: try COLMAPModel.camera(model: spec.name, width: Int(w), height: Int(h), params: params),
                    modelName: spec.name))
        }
        return out.sorted { $0.id < $1.id }
    }

    static func parseImages(_ bytes: [UInt8]) throws(COLMAPError) -> [COLMAPModel.ImageEntry] {
        let images: [COLMAPModel.ImageEntry] = try parse(
            "images.bin",
            { r throws(BinaryReader.ReadError) in
                let n = try r.count(try r.u64(), minimumElementSize: 73)
                var out: [COLMAPModel.ImageEntry] = []
                out.reserveCapacity(n)
                for _ in 0..<n {
                    let id = try r.u32()
                    var v: [Double] = []
                    for _ in 0..<7 { v.append(try r.f64()) }
                    let camera = try r.u32()
                    let name = try r.cString()
                    let k = try r.count(try r.u64(), minimumElementSize: 24)
                    var pts: [(xy: Vec2, point3DID: UInt64?)] = []
                    pts.reserveCapacity(k)
                    for _ in 0..<k {
                        let x = try r.f64(), y = try r.f64(), pid = try r.u64()
                        pts.append((Vec2(x, y), pid == invalidPointID ? nil : pid))
                    }
                    let q = Quaternion(x: v[1], y: v[2], z: v[3], w: v[0])
                    out.append(
                        .init(
                            id: id, cameraID: camera, name: name,
                            camFromWorld: Rigid3(rotation: q, translation: Vec3(v[4], v[5], v[6])), points2D: pts))
                }
                return out
            }, bytes)
        for im in images where !(im.camFromWorld.isFinite) {
            throw .malformed("images.bin: image \(im.id) has a non-finite pose")
        }
        return images.sorted { $0.id < $1.id }
    }

    static func parsePoints(_ bytes: [UInt8]) throws(COLMAPError) -> [COLMAPModel.PointEntry] {
        let points: [COLMAPModel.PointEntry] = try parse(
            "points3D.bin",
            { r throws(BinaryReader.ReadError) in
                let n = try r.count(try r.u64(), minimumElementSize: 51)
                var out: [COLMAPModel.PointEntry] = []
                out.reserveCapacity(n)
                for _ in 0..<n {
                    let id = try r.u64()
                    let p = Vec3(try r.f64(), try r.f64(), try r.f64())
                    let rgb = (try r.u8(), try r.u8(), try r.u8())
                    let e = try r.f64()
                    let k = try r.count(try r.u64(), minimumElementSize: 8)
                    var track: [(imageID: UInt32, point2DIndex: UInt32)] = []
                    track.reserveCapacity(k)
                    for _ in 0..<k { track.append((try r.u32(), try r.u32())) }
                    out.append(.init(id: id, position: p, color: rgb, error: e, track: track))
                }
                return out
            }, bytes)
        return points.sorted { $0.id < $1.id }
    }
}
