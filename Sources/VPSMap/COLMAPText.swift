import Foundation
import VPSGeometry

/// Reads and writes COLMAP's text format (`cameras.txt`, `images.txt`, `points3D.txt`).
///
/// Lines starting with `#` are comments. `images.txt` has two lines per image: the pose line
/// `IMAGE_ID QW QX QY QZ TX TY TZ CAMERA_ID NAME` and the keypoint line `X Y POINT3D_ID ...`
/// (−1 for an untriangulated keypoint). Image names may not contain line breaks.
public enum COLMAPText {
    /// Reads a model from a folder holding the three text files.
    ///
    /// - Throws: `COLMAPError` naming the file and line of the first problem.
    public static func read(from folder: URL) throws(COLMAPError) -> COLMAPModel {
        let cameras = try parseCameras(try load(folder, "cameras.txt"))
        let images = try parseImages(try load(folder, "images.txt"))
        let points = try parsePoints(try load(folder, "points3D.txt"))
        let model = COLMAPModel(cameras: cameras, images: images, points: points)
        try model.validate()
        return model
    }

    /// Writes the model's three text files into `folder` (created if needed).
    public static func write(_ model: COLMAPModel, to folder: URL) throws(COLMAPError) {
        var cameras = "# Camera list with one line of data per camera:\n#   CAMERA_ID, MODEL, WIDTH, HEIGHT, PARAMS[]\n"
        for c in model.cameras {
            let (name, values) = COLMAPModel.written(c)
            let params = values.map { format($0) }.joined(separator: " ")
            cameras += "\(c.id) \(name) \(c.camera.width) \(c.camera.height) \(params)\n"
        }
        var images = "# Image list with two lines of data per image:\n"
        images += "#   IMAGE_ID, QW, QX, QY, QZ, TX, TY, TZ, CAMERA_ID, NAME\n#   POINTS2D[] as (X, Y, POINT3D_ID)\n"
        for im in model.images {
            let q = im.camFromWorld.rotation, t = im.camFromWorld.translation
            images +=
                [
                    im.id.description, format(q.w), format(q.x), format(q.y), format(q.z), format(t.x), format(t.y),
                    format(t.z), im.cameraID.description, im.name,
                ]
                .joined(separator: " ") + "\n"
            images +=
                im.points2D.map { "\(format($0.xy.x)) \(format($0.xy.y)) \($0.point3DID.map { String($0) } ?? "-1")" }
                .joined(separator: " ") + "\n"
        }
        var points = "# 3D point list with one line of data per point:\n"
        points += "#   POINT3D_ID, X, Y, Z, R, G, B, ERROR, TRACK[] as (IMAGE_ID, POINT2D_IDX)\n"
        for p in model.points {
            var line = "\(p.id) \(format(p.position.x)) \(format(p.position.y)) \(format(p.position.z)) "
            line += "\(p.color.0) \(p.color.1) \(p.color.2) \(format(p.error))"
            for t in p.track { line += " \(t.imageID) \(t.point2DIndex)" }
            points += line + "\n"
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try cameras.write(to: folder.appendingPathComponent("cameras.txt"), atomically: true, encoding: .utf8)
            try images.write(to: folder.appendingPathComponent("images.txt"), atomically: true, encoding: .utf8)
            try points.write(to: folder.appendingPathComponent("points3D.txt"), atomically: true, encoding: .utf8)
        } catch {
            throw .io("\(error)")
        }
    }

    /// Round-trip-exact decimal form of a double.
    static func format(_ v: Double) -> String { "\(v)" }

    static func load(_ folder: URL, _ name: String) throws(COLMAPError) -> String {
        let url = folder.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else { throw .missingFile(name) }
        do { return try String(contentsOf: url, encoding: .utf8) } catch { throw .io("\(name): \(error)") }
    }

    /// Non-comment lines with their 1-based line numbers; `keepEmpty` keeps blank lines (images.txt
    /// uses an empty keypoint line for an image without keypoints).
    static func dataLines(_ text: String, keepEmpty: Bool = false) -> [(Int, Substring)] {
        var out: [(Int, Substring)] = []
        for (k, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.hasSuffix("\r") ? line.dropLast() : line
            if trimmed.hasPrefix("#") { continue }
            if trimmed.allSatisfy({ $0 == " " }) && !keepEmpty { continue }
            out.append((k + 1, trimmed))
        }
        return out
    }

    static func fields(_ line: Substring) -> [Substring] { line.split(separator: " ", omittingEmptySubsequences: true) }

    static func parseCameras(_ text: String) throws(COLMAPError) -> [COLMAPModel.CameraEntry] {
        var out: [COLMAPModel.CameraEntry] = []
        for (n, line) in dataLines(text) {
            let f = fields(line)
            guard f.count >= 4, let id = UInt32(f[0]), let w = Int(f[2]), let h = Int(f[3]), w > 0, h > 0 else {
                throw .malformed("cameras.txt line \(n): expected CAMERA_ID MODEL WIDTH HEIGHT PARAMS")
            }
            var params: [Double] = []
            for s in f.dropFirst(4) {
                guard let v = Double(s) else { throw .malformed("cameras.txt line \(n): bad parameter '\(s)'") }
                params.append(v)
            }
            let model = String(f[1])
            out.append(
                .init(
                    id: id, camera: try COLMAPModel.camera(model: model, width: w, height: h, params: params),
                    modelName: model))
        }
        return out.sorted { $0.id < $1.id }
    }

    static func parseImages(_ text: String) throws(COLMAPError) -> [COLMAPModel.ImageEntry] {
        // Drop comment lines, keep blank keypoint lines; a trailing blank line ends the file.
        var lines = dataLines(text, keepEmpty: true)
        while let last = lines.last, last.1.allSatisfy({ $0 == " " }) { lines.removeLast() }
        var out: [COLMAPModel.ImageEntry] = []
        var k = 0
        while k < lines.count {
            let (n, line) = lines[k]
            let f = fields(line)
            guard f.count >= 10, let id = UInt32(f[0]), let camera = UInt32(f[8]) else {
                throw .malformed("images.txt line \(n): expected IMAGE_ID QW QX QY QZ TX TY TZ CAMERA_ID NAME")
            }
            var v: [Double] = []
            for s in f[1...7] {
                guard let d = Double(s), d.isFinite else {
                    throw .malformed("images.txt line \(n): bad pose value '\(s)'")
                }
                v.append(d)
            }
            let q = Quaternion(x: v[1], y: v[2], z: v[3], w: v[0])
            guard q.norm > 0.5 else { throw .malformed("images.txt line \(n): quaternion norm \(q.norm) is not ~1") }
            // The name is everything after CAMERA_ID (names may contain spaces).
            let name =
                line.split(separator: " ", maxSplits: 9, omittingEmptySubsequences: true).last.map(String.init) ?? ""
            var points2D: [(xy: Vec2, point3DID: UInt64?)] = []
            if k + 1 < lines.count {
                let g = fields(lines[k + 1].1)
                guard g.count % 3 == 0 else {
                    throw .malformed("images.txt line \(lines[k + 1].0): POINTS2D needs triples")
                }
                points2D.reserveCapacity(g.count / 3)
                var j = 0
                while j < g.count {
                    guard let x = Double(g[j]), let y = Double(g[j + 1]), let pid = Int64(g[j + 2]), x.isFinite,
                        y.isFinite
                    else {
                        throw .malformed("images.txt line \(lines[k + 1].0): bad keypoint")
                    }
                    points2D.append((Vec2(x, y), pid < 0 ? nil : UInt64(pid)))
                    j += 3
                }
            }
            out.append(
                .init(
                    id: id, cameraID: camera, name: name,
                    camFromWorld: Rigid3(rotation: q, translation: Vec3(v[4], v[5], v[6])), points2D: points2D))
            k += 2
        }
        return out.sorted { $0.id < $1.id }
    }

    static func parsePoints(_ text: String) throws(COLMAPError) -> [COLMAPModel.PointEntry] {
        var out: [COLMAPModel.PointEntry] = []
        for (n, line) in dataLines(text) {
            let f = fields(line)
            guard f.count >= 8, (f.count - 8) % 2 == 0, let id = UInt64(f[0]),
                let x = Double(f[1]), let y = Double(f[2]), let z = Double(f[3]),
                let r = UInt8(f[4]), let g = UInt8(f[5]), let b = UInt8(f[6]), let e = Double(f[7])
            else { throw .malformed("points3D.txt line \(n): expected POINT3D_ID X Y Z R G B ERROR TRACK[]") }
            var track: [(imageID: UInt32, point2DIndex: UInt32)] = []
            var j = 8
            while j < f.count {
                guard let im = UInt32(f[j]), let idx = UInt32(f[j + 1]) else {
                    throw .malformed("points3D.txt line \(n): bad track")
                }
                track.append((im, idx))
                j += 2
            }
            out.append(.init(id: id, position: Vec3(x, y, z), color: (r, g, b), error: e, track: track))
        }
        return out.sorted { $0.id < $1.id }
    }
}
