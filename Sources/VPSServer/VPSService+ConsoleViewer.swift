import Foundation
import VPSCapture
import VPSGeometry
import VPSImaging
import VPSMap
import VPSProtocol

/// What the console's 3D viewer fetches of one of the account's maps: the scene (keyframes,
/// georeference axes, build report), the points (binary, docs/FORMATS.md), the mesh and keyframe
/// images. Another account's map answers exactly as a map that does not exist (404).
extension VPSService {
    /// A keyframe as the viewer draws it.
    struct ViewerKeyframe: Codable {
        var id: Int
        var name: String
        var width: Int
        var height: Int
        var fx: Double
        var fy: Double
        var cx: Double
        var cy: Double
        /// `mapFromCamera`, CV camera axes (x right, y down, z forward), right-handed map frame.
        var camera: QueryLogEntry.ViewerPose
        /// True when the image it was built from is kept (uploads built by the server); otherwise the
        /// image route draws its keypoints in their points' colours.
        var hasImage: Bool
        var keypoints: Int
    }

    /// The georeference as three unit axes (east, north, up) in the map frame at the map's origin.
    struct ViewerGeoAxes: Codable {
        var latitude: Double
        var longitude: Double
        var altitude: Double
        var headingDegrees: Double
        var east: [Double]
        var north: [Double]
        var up: [Double]
    }

    struct ViewerScene: Codable {
        var id: String
        var code: String
        var name: String
        var status: String
        /// The builder's reason when the build failed.
        var failure: String?
        var pointCount: Int
        var keyframes: [ViewerKeyframe]
        var georeference: ViewerGeoAxes?
        var hasMesh: Bool
        /// What each stage of the build kept and dropped, when the map file records it.
        var buildFunnel: MapBuildFunnel?
        /// Axis-aligned bounds of the points `[minX, minY, minZ, maxX, maxY, maxZ]`.
        var bounds: [Double]?
        var createdAt: String
        var updatedAt: String
    }

    /// The account's map (or object) named by the `key` parameter.
    func consoleRecord(_ c: Context) throws(APIError) -> MapRecord {
        let key = c.parameters["key"] ?? ""
        let caller = try caller(c)
        var found = try lookup(key, caller, kind: .map)
        if found == nil { found = try lookup(key, caller, kind: .object) }
        guard let record = found else {
            throw APIError(.mapNotFound, "Map \(key) not found")
        }
        return record
    }

    /// The map file of an active record.
    func consoleMapData(_ record: MapRecord) throws(APIError) -> MapData {
        guard record.status == .active else {
            throw APIError(.mapNotActive, "Map \(record.code) is \(record.status.rawValue)")
        }
        fetchIntoCache(record)
        do { return try MapFile.read(from: MapFiles(dataDirectory: config.dataDirectory).map(record)) } catch {
            throw APIError(.mapNotActive, "Map \(record.code) cannot be loaded (\(error.code))")
        }
    }

    func consoleScene(_ c: Context) throws(APIError) -> HTTPResponse {
        let record = try consoleRecord(c)
        var scene = ViewerScene(
            id: record.id, code: record.code, name: record.name, status: record.status.rawValue,
            failure: record.failure.isEmpty ? nil : record.failure, pointCount: 0, keyframes: [],
            georeference: nil, hasMesh: false, buildFunnel: nil, bounds: nil,
            createdAt: Identifiers.timestamp(record.createdAt), updatedAt: Identifiers.timestamp(record.updatedAt))
        guard record.status == .active else { return Self.consoleJSON(scene) }
        let map = try consoleMapData(record)
        let images = MapFiles(dataDirectory: config.dataDirectory).keyframeImages(record)
        scene.pointCount = map.pointCount
        scene.hasMesh = map.mesh != nil
        scene.buildFunnel = map.buildFunnel
        scene.keyframes = map.keyframes.map { k in
            let mapFromCamera = k.camFromMap.inverse
            let t = mapFromCamera.translation, r = mapFromCamera.rotation.normalized
            return ViewerKeyframe(
                id: Int(k.id), name: k.name, width: k.camera.width, height: k.camera.height, fx: k.camera.fx,
                fy: k.camera.fy, cx: k.camera.cx, cy: k.camera.cy,
                camera: .init(position: [t.x, t.y, t.z], rotation: [r.x, r.y, r.z, r.w]),
                hasImage: FileManager.default.fileExists(atPath: images.appendingPathComponent("\(k.id).jpg").path),
                keypoints: k.keypoints.count)
        }
        if let first = map.positions.first {
            var lo = first, hi = first
            for p in map.positions {
                lo = Vec3(min(lo.x, p.x), min(lo.y, p.y), min(lo.z, p.z))
                hi = Vec3(max(hi.x, p.x), max(hi.y, p.y), max(hi.z, p.z))
            }
            scene.bounds = [lo.x, lo.y, lo.z, hi.x, hi.y, hi.z]
        }
        if let geo = map.georeference, geo.isValid {
            scene.georeference = Self.geoAxes(geo)
        }
        return Self.consoleJSON(scene)
    }

    /// East, north and up at the map origin, measured through the georeference itself (1 m steps).
    static func geoAxes(_ geo: Georeference) -> ViewerGeoAxes {
        let o = geo.origin
        let metresPerDegree = 111_320.0
        let dLat = 1 / metresPerDegree
        let dLon = 1 / (metresPerDegree * max(1e-6, cos(o.latitude * .pi / 180)))
        let p0 = geo.map(fromGeo: o)
        func unit(_ g: GeoCoordinate) -> [Double] {
            let d = geo.map(fromGeo: g) - p0
            let n = max(1e-12, (d.x * d.x + d.y * d.y + d.z * d.z).squareRoot())
            return [d.x / n, d.y / n, d.z / n]
        }
        return ViewerGeoAxes(
            latitude: o.latitude, longitude: o.longitude, altitude: o.altitude, headingDegrees: geo.headingDegrees,
            east: unit(GeoCoordinate(latitude: o.latitude, longitude: o.longitude + dLon, altitude: o.altitude)),
            north: unit(GeoCoordinate(latitude: o.latitude + dLat, longitude: o.longitude, altitude: o.altitude)),
            up: unit(GeoCoordinate(latitude: o.latitude, longitude: o.longitude, altitude: o.altitude + 1)))
    }

    /// The points as `VPSPTS01` (docs/FORMATS.md): magic, u32 count, count × 3 float32 positions, then
    /// count × 3 bytes of colour, little-endian.
    func consolePoints(_ c: Context) throws(APIError) -> HTTPResponse {
        let map = try consoleMapData(try consoleRecord(c))
        return HTTPResponse(
            status: 200, headers: [("Content-Type", "application/octet-stream"), ("Cache-Control", "no-store")],
            body: Self.pointBytes(map))
    }

    /// The `VPSPTS01` encoding of a map's points.
    static func pointBytes(_ map: MapData) -> [UInt8] {
        let n = map.pointCount
        var out = [UInt8]()
        out.reserveCapacity(12 + 15 * n)
        out += Array("VPSPTS01".utf8)
        withUnsafeBytes(of: UInt32(n).littleEndian) { out += $0 }
        for p in map.positions {
            for v in [p.x, p.y, p.z] { withUnsafeBytes(of: Float(v).bitPattern.littleEndian) { out += $0 } }
        }
        out += map.colors.count == 3 * n ? map.colors : [UInt8](repeating: 200, count: 3 * n)
        return out
    }

    func consoleMesh(_ c: Context) throws(APIError) -> HTTPResponse {
        let record = try consoleRecord(c)
        fetchIntoCache(record)
        guard
            let bytes = FileManager.default.contents(
                atPath: MapFiles(dataDirectory: config.dataDirectory).mesh(record).path)
        else { throw APIError(.fileNotFound, "Map \(record.code) has no mesh") }
        return HTTPResponse(
            status: 200, headers: [("Content-Type", "model/gltf-binary"), ("Cache-Control", "no-store")],
            body: [UInt8](bytes))
    }

    /// The keyframe's image when the build kept it, else its keypoints drawn in their points' colours
    /// (`X-Keyframe-Image: features`).
    func consoleKeyframeImage(_ c: Context) throws(APIError) -> HTTPResponse {
        let record = try consoleRecord(c)
        let frame = try Self.intParameter(c.parameters["frame"], default: 0, range: 0...Int(UInt32.max), name: "frame")
        let kept = MapFiles(dataDirectory: config.dataDirectory).keyframeImages(record)
            .appendingPathComponent("\(frame).jpg")
        if let bytes = FileManager.default.contents(atPath: kept.path) {
            return HTTPResponse(
                status: 200,
                headers: [
                    ("Content-Type", "image/jpeg"), ("Cache-Control", "no-store"), ("X-Keyframe-Image", "photo"),
                ],
                body: [UInt8](bytes))
        }
        let map = try consoleMapData(record)
        guard let k = map.keyframes.first(where: { Int($0.id) == frame }) else {
            throw APIError(.fileNotFound, "Map \(record.code) has no keyframe \(frame)")
        }
        let bytes: [UInt8]
        do { bytes = try JPEG.encode(Self.keypointSketch(k, map: map), quality: 85) } catch {
            throw APIError(.internalError, "Drawing the keyframe failed")
        }
        return HTTPResponse(
            status: 200,
            headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "no-store"), ("X-Keyframe-Image", "features")],
            body: bytes)
    }

    /// A keyframe's keypoints on a dark background, at most 480 px wide: in their map point's colour,
    /// grey when they have none.
    static func keypointSketch(_ k: Keyframe, map: MapData) -> RGBImage {
        let scale = min(1, 480 / Double(max(1, k.camera.width)))
        let w = max(1, Int(Double(k.camera.width) * scale)), h = max(1, Int(Double(k.camera.height) * scale))
        var image = RGBImage(width: w, height: h, fill: (24, 26, 30))
        for (i, p) in k.keypoints.enumerated() {
            let index = Int(k.pointIndices[i])
            var color = RGB(r: 110, g: 110, b: 110)
            if index >= 0, 3 * index + 2 < map.colors.count {
                color = RGB(r: map.colors[3 * index], g: map.colors[3 * index + 1], b: map.colors[3 * index + 2])
            }
            image.fillDisc(
                center: (Int(Double(p.x) * scale), Int(Double(p.y) * scale)), radius: index >= 0 ? 2.5 : 1.2,
                color: color)
        }
        return image
    }

    /// Keeps a 480-px-wide JPEG of each keyframe's source image next to the map (after a build from a
    /// staged capture dataset, for the console's viewer). Failures only cost the pictures.
    static func keepKeyframeImages(_ map: MapData, staging: URL, to folder: URL) {
        guard let json = FileManager.default.contents(atPath: staging.appendingPathComponent("captures.json").path),
            let dataset = try? JSONDecoder().decode(CaptureDataset.self, from: json)
        else { return }
        let images = Dictionary(dataset.frames.map { ($0.id, $0.image) }, uniquingKeysWith: { a, _ in a })
        try? FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for k in map.keyframes {
            guard let path = images[k.name], isSafeRelativePath(path),
                let rgb = try? JPEG.readRGB(fromFile: staging.appendingPathComponent(path).path)
            else { continue }
            let scale = min(1, 480 / Double(max(1, rgb.width)))
            let small =
                scale < 1
                ? rgb.resizedByArea(
                    width: max(1, Int(Double(rgb.width) * scale)), height: max(1, Int(Double(rgb.height) * scale)))
                : rgb
            guard let bytes = try? JPEG.encode(small, quality: 80) else { continue }
            let out = folder.appendingPathComponent("\(k.id).jpg")
            if FileManager.default.createFile(atPath: out.path, contents: Data(bytes)) { chmod(out.path, 0o600) }
        }
    }
}

extension MapFiles {
    /// The folder of a map's kept keyframe images (`maps/<id>.frames/<keyframe id>.jpg`).
    public func keyframeImages(_ r: MapRecord) -> URL {
        map(r).deletingPathExtension().appendingPathExtension("frames")
    }
}
