import Foundation
import VPSGeometry
import VPSImaging
import VPSMap
import VPSServer
import VPSSimulation

/// The demo's maps: a synthetic venue scanned with exact poses and built into a map in the data
/// directory, or the one an earlier run left there.
enum DemoVenueMap {
    static let camera = Camera(fx: 480, fy: 480, cx: 320, cy: 240, width: 640, height: 480)

    /// The map code of a demo venue, e.g. `MAP_DEMOROOM0007` (MAP_ and 12 uppercase letters or digits).
    static func code(_ kind: Venue.Kind, seed: UInt64) -> String {
        let name = String(kind.rawValue.uppercased().prefix(4)).padding(toLength: 4, withPad: "X", startingAt: 0)
        return "MAP_DEMO" + name + String(format: "%04d", Int(seed % 10_000))
    }

    /// Builds (or reuses) the map of `venue` in `data`.
    ///
    /// - Parameters:
    ///   - onlyRoomA: for the aliasing venue, scan only room A (x < 0): room B is its unmapped twin.
    ///   - log: progress lines.
    /// - Returns: the code, the map's points and whether an earlier build was reused.
    static func prepare(
        venue: Venue, seed: UInt64, data: DataDirectory, onlyRoomA: Bool, log: (String) -> Void
    ) throws -> (code: String, points: [Vec3], reused: Bool) {
        let kind = venue.kind ?? .room
        let code = code(kind, seed: seed)
        let url = data.mapFile(code: code)
        if let record = try data.store.map(idOrCode: code, accountID: DataDirectory.defaultAccountID, kind: .map),
            record.status == .active, FileManager.default.fileExists(atPath: url.path),
            let map = try? MapFile.read(from: url)
        {
            log("map: reusing \(code) from \(url.path) (\(map.positions.count) points)")
            return (code, map.positions, true)
        }
        // Scan with exact poses (the map-building part of the first demo).
        let renderer = Renderer(venue: venue)
        let scan = Trajectory.generate(.scan, in: venue, seed: seed)
        var frames: [MappingFrame] = []
        var images: [RGBImage] = []
        for t in stride(from: 0.0, through: scan.duration, by: 1.0) {
            let worldFromCamera = scan.worldFromCamera(at: t)
            if onlyRoomA && worldFromCamera.translation.x > -0.3 { continue }
            let pose = CameraPose(CameraAxes.cvPose(fromARKit: worldFromCamera).inverse)
            frames.append(
                MappingFrame(name: String(format: "scan_%03d", frames.count), camera: camera, camFromMap: pose))
            images.append(renderer.render(camera: camera, camFromWorld: pose))
        }
        log("scan: \(frames.count) frames rendered\(onlyRoomA ? " in room A" : "")")
        let frozen = images
        let (map, report) = try MapBuilder.build(
            frames: frames, loadImage: { frozen[$0] }, code: code, name: "demo \(venue.name)")
        try MapFile.write(map, to: url, meshTo: data.meshFile(code: code))
        if let old = try data.store.map(idOrCode: code, accountID: DataDirectory.defaultAccountID, kind: .map) {
            var record = old
            record.status = .active
            record.file = "maps/\(url.lastPathComponent)"
            try data.store.updateMap(record)
        } else {
            let now = Date().timeIntervalSince1970
            try data.store.createMap(
                MapRecord(
                    id: Identifiers.newID(), accountID: DataDirectory.defaultAccountID, code: code, kind: .map,
                    name: "demo \(venue.name)", description: "multiset demo", status: .active,
                    file: "maps/\(url.lastPathComponent)",
                    bytes: (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue
                        ?? 0, failure: "",
                    createdAt: now, updatedAt: now))
        }
        log("map: \(code) built: \(report)")
        return (code, map.positions, false)
    }
}
