import Foundation
import MultiSetSDK
import Testing
import VPSGeometry
import VPSImaging
import VPSMap
import VPSProtocol
import VPSSimulation

@testable import VPSServer

/// Extending a map with a second scan (issue 16): the SDK's scanner scans the first stations of a room,
/// the map is built; a second session scans the rest (overlapping the first at the seam) and its upload
/// extends the map, so queries in the new part localize with the same code. A scan of another place
/// fails with a clear reason and the map still answers from its old file.
@Suite(.serialized) struct MapExtensionTests {
    static let camera = Camera(fx: 480, fy: 480, cx: 320, cy: 240, width: 640, height: 480)

    /// A scan of `trajectory` through the SDK's scanner (keyframes spaced as in the life-cycle test),
    /// with the AR and true centres of its keyframes.
    static func scan(
        _ venue: Venue, _ trajectory: Trajectory, seed: UInt64, into folder: URL
    ) throws -> (MapScanner.ScanResult, ar: [Vec3], truth: [Vec3]) {
        var simulator = ARSessionSimulator(
            venue: venue, trajectory: trajectory,
            configuration: ARSessionConfiguration(
                camera: camera, frameInterval: 0.1, translationDriftPerMetre: 0.003, yawDriftDegreesPerMinute: 0.15),
            seed: seed)
        var policy = ScanKeyframePolicy()
        policy.minInterval = 0.9
        policy.minTranslation = 0.25
        policy.minRotationDegrees = 16
        let scanner = MapScanner(policy: policy, imageCodec: TurboImageCodec())
        try scanner.start(in: folder, device: .init(model: "simulator", name: "extension test"))
        var ar: [Vec3] = [], truth: [Vec3] = []
        while let frame = simulator.next(renderingImage: false) {
            scanner.notifyTracking(SimulatedFrameSource.trackingSignal(frame.trackingState))
            guard scanner.considerPose(timestamp: frame.timestamp, worldFromCamera: frame.arWorldFromCamera) == nil,
                let camera = SimulatedFrameSource.cameraFrame(frame, image: simulator.render(frame), quality: 90),
                case .kept = scanner.processCandidate(camera)
            else { continue }
            ar.append(frame.arWorldFromCamera.translation)
            truth.append(frame.trueWorldFromCamera.translation)
        }
        return (try scanner.finish(), ar, truth)
    }

    /// Queries `poses` (venue frame, ARKit camera axes) through the single-frame route; counts answers
    /// within (5 cm, 1°) and wrong ones (beyond 0.5 m or 5°) once mapped by `venueFromMap`.
    static func localize(
        _ service: VPSService, token: String, code: String, venue: Venue, poses: [Rigid3], venueFromMap: Rigid3
    ) throws -> (good: Int, found: Int, wrong: Int) {
        let renderer = Renderer(venue: venue)
        var good = 0, found = 0, wrong = 0
        for truth in poses {
            let image = renderer.render(
                camera: camera, camFromWorld: CameraPose(CameraAxes.cvPose(fromARKit: truth).inverse))
            let parts: [MultipartPart] = [
                .field("mapCode", code), .field("fx", "480"), .field("fy", "480"), .field("px", "320"),
                .field("py", "240"), .field("width", "640"), .field("height", "480"),
                MultipartPart(
                    name: "queryImage", filename: "q.jpg", contentType: "image/jpeg",
                    data: try JPEG.encode(image, quality: 90)),
            ]
            var request = VPSServer.HTTPRequest(
                method: "POST", path: "/v1/vps/map/query-form",
                headers: [
                    ("Authorization", "Bearer \(token)"), ("Content-Type", Multipart.contentType(boundary: "XyZ")),
                ])
            request.body = Multipart.encode(parts, boundary: "XyZ")
            let response = service.handle(request)
            #expect(response.status == 200)
            let answer = try JSONDecoder().decode(SingleFrameQueryResponse.self, from: Data(response.body))
            guard answer.poseFound, let p = answer.position, let q = answer.rotation else { continue }
            found += 1
            // The answer is left-handed (Unity); back to the map's right-handed frame.
            let mapFromCamera = Handedness.convertCameraPose(
                Rigid3(rotation: Quaternion(x: q.x, y: q.y, z: q.z, w: q.w), translation: Vec3(p.x, p.y, p.z)))
            let e = (venueFromMap * mapFromCamera).error(to: truth)
            if e.translation <= 0.05 && e.rotation * 180 / .pi <= 1 { good += 1 }
            if e.translation > 0.5 || e.rotation * 180 / .pi > 5 { wrong += 1 }
        }
        return (good, found, wrong)
    }

    static func token(_ service: VPSService, _ id: String, _ secret: String) throws -> String {
        let r = service.handle(
            VPSServer.HTTPRequest(
                method: "POST", path: "/v1/m2m/token", headers: [("Username", id), ("Password", secret)]))
        return try JSONDecoder().decode(TokenResponse.self, from: Data(r.body)).token
    }

    static func startUpload(_ service: VPSService, token: String, _ fields: [MultipartPart]) -> VPSServer.HTTPResponse {
        let captures = #"{"version":1,"device":{"model":"x","name":"y"},"frames":[]}"#
        var request = VPSServer.HTTPRequest(
            method: "POST", path: "/v1/vps/map/uploads",
            headers: [("Authorization", "Bearer \(token)"), ("Content-Type", Multipart.contentType(boundary: "XyZ"))])
        request.body = Multipart.encode(
            fields + [
                MultipartPart(
                    name: "captures.json", filename: "captures.json", contentType: "application/json",
                    data: Array(captures.utf8))
            ], boundary: "XyZ")
        return service.handle(request)
    }

    static func code(_ r: VPSServer.HTTPResponse) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any])?["code"] as? String
    }

    @Test func aSecondScanOfTheAdjacentAreaExtendsTheMapAndAScanElsewhereFails() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("map-extend-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let data = try DataDirectory(path: root.appendingPathComponent("data").path)
        let hasher = SecretHasher(iterations: 200)
        let (clientID, secret) = try data.createClient(name: "extender", hasher: hasher)
        let service = VPSService(
            config: ServerConfig(dataDirectory: data.url.path), store: data.store, engine: LocalizerEngine(data: data),
            jwtKey: data.jwtKey, hasher: hasher)
        // A fresh token for each step: on a slow, loaded machine the test outlives a token's hour.
        let fresh = { try Self.token(service, clientID, secret) }
        let transport = InProcessTransport(service: service)
        var retry = ScanRetryPolicy()
        retry.pollInterval = 0.05
        let uploader = ScanUploader(
            baseURL: "http://127.0.0.1/v1", clientId: clientID, clientSecret: secret, transport: transport,
            policy: retry,
            pause: { _ in
                // Builds run on the server's queue: a poll pause lets it work (no clock to advance).
                try? await Task.sleep(nanoseconds: 50_000_000)
            })

        // 1. The first stations of the room's scan, scanned and built.
        let venue = Venue.generate(.room, seed: 31, texelScale: 2)
        let full = Trajectory.generate(.scan, in: venue, seed: 31)
        let seam = (first: 0.6 * full.duration, second: 0.45 * full.duration)
        print("map extension: the room's scan takes \(String(format: "%.0f", full.duration)) s")
        let first = try Self.scan(
            venue, full.slice(from: 0, to: seam.first), seed: 42, into: root.appendingPathComponent("a"))
        #expect(first.0.isReadyToUpload, "\(first.0.problems)")
        let built = try await uploader.upload(first.0, name: "room", code: "MAP_EXTENDTEST01")
        let before = try #require(
            try data.store.map(idOrCode: "MAP_EXTENDTEST01", accountID: DataDirectory.defaultAccountID, kind: .map))
        #expect(before.status == .active && before.id == built.mapId)
        let venueFromMap = try #require(alignRigid(source: first.ar, target: first.truth))
        // Queries: in the first part, and in the part only the second scan covers (the walk's poses
        // between its stations, off the keyframes).
        let oldArea = stride(from: 0.05, to: 0.45, by: 0.07).map { full.worldFromCamera(at: $0 * full.duration + 0.45) }
        let newArea = stride(from: 0.66, to: 0.98, by: 0.04).map { full.worldFromCamera(at: $0 * full.duration + 0.45) }
        let oldBefore = try Self.localize(
            service, token: try fresh(), code: built.mapCode, venue: venue, poses: oldArea, venueFromMap: venueFromMap)
        let newBefore = try Self.localize(
            service, token: try fresh(), code: built.mapCode, venue: venue, poses: newArea, venueFromMap: venueFromMap)
        print("map extension: before, old area \(oldBefore), new area \(newBefore) of \(newArea.count)")

        // 2. Refused at once: an unknown map, another account's map, extends with a code.
        #expect(
            Self.code(Self.startUpload(service, token: try fresh(), [.field("extends", "MAP_NOSUCHMAP001")]))
                == "MAP_NOT_FOUND")
        try data.store.createAccount(AccountRecord(id: "0000000000000000000000f2", name: "other", createdAt: 0))
        let (otherID, otherSecret) = try data.createClient(
            name: "other", accountID: "0000000000000000000000f2", hasher: hasher)
        let other = try Self.token(service, otherID, otherSecret)
        let foreign = Self.startUpload(service, token: other, [.field("extends", "MAP_EXTENDTEST01")])
        #expect(foreign.status == 404 && Self.code(foreign) == "MAP_NOT_FOUND")
        let both = Self.startUpload(
            service, token: try fresh(), [.field("extends", "MAP_EXTENDTEST01"), .field("code", "MAP_EXTENDTEST02")])
        #expect(both.status == 409 && Self.code(both) == "CODE_MISMATCH")
        let same = Self.startUpload(
            service, token: try fresh(), [.field("extends", "MAP_EXTENDTEST01"), .field("code", "MAP_EXTENDTEST01")])
        // (Refused for the missing captures.json part, not for its code.)
        #expect(Self.code(same) != "CODE_MISMATCH")

        // 3. A scan of another place: it cannot be placed in the map; the map is untouched.
        let room = Venue.generate(.room, seed: 43, texelScale: 2)
        let elsewhere = try Self.scan(
            room, Trajectory.generate(.scan, in: room, duration: seam.first, seed: 43), seed: 44,
            into: root.appendingPathComponent("elsewhere"))
        var refusal: ScanError?
        do { _ = try await uploader.extend(mapCode: "MAP_EXTENDTEST01", with: elsewhere.0) } catch { refusal = error }
        guard case .buildFailed(let failCode, let failMessage)? = refusal else {
            Issue.record("expected the extension to fail, got \(String(describing: refusal))")
            return
        }
        print("map extension: elsewhere \(failCode): \(failMessage)")
        #expect(failCode == "MAP_EXTEND_NO_OVERLAP" && failMessage.contains("overlap too little"))
        let untouched = try #require(
            try data.store.map(idOrCode: "MAP_EXTENDTEST01", accountID: DataDirectory.defaultAccountID, kind: .map))
        #expect(untouched == before)
        #expect(FileManager.default.fileExists(atPath: data.mapFile(before).path))
        let oldAfterFailure = try Self.localize(
            service, token: try fresh(), code: built.mapCode, venue: venue, poses: oldArea, venueFromMap: venueFromMap)
        #expect(oldAfterFailure == oldBefore)

        // 4. The rest of the room's scan, from a second session whose frame starts elsewhere: it extends the map.
        let second = try Self.scan(
            venue, full.slice(from: seam.second), seed: 45, into: root.appendingPathComponent("b"))
        #expect(second.0.isReadyToUpload, "\(second.0.problems)")
        let extended = try await uploader.extend(mapCode: "MAP_EXTENDTEST01", with: second.0)
        #expect(extended.mapCode == "MAP_EXTENDTEST01" && extended.mapId == before.id)
        let after = try #require(
            try data.store.map(idOrCode: "MAP_EXTENDTEST01", accountID: DataDirectory.defaultAccountID, kind: .map))
        #expect(after.status == .active && after.file != before.file && after.name == "room")
        #expect(!FileManager.default.fileExists(atPath: data.mapFile(before).path))
        let map = try MapFile.read(from: data.mapFile(after))
        let baseMap = first.0.dataset.frames.count
        #expect(map.keyframes.count > baseMap && map.code == "MAP_EXTENDTEST01")
        let oldAfter = try Self.localize(
            service, token: try fresh(), code: built.mapCode, venue: venue, poses: oldArea, venueFromMap: venueFromMap)
        let newAfter = try Self.localize(
            service, token: try fresh(), code: built.mapCode, venue: venue, poses: newArea, venueFromMap: venueFromMap)
        print(
            "map extension: \(first.0.dataset.frames.count) + \(second.0.dataset.frames.count) keyframes → \(map.keyframes.count), "
                + "\(map.pointCount) points; after, old area \(oldAfter), new area \(newAfter) of \(newArea.count)")
        #expect(newAfter.good >= newArea.count - 1 && newAfter.wrong == 0)
        #expect(newAfter.good > newBefore.good)
        #expect(oldAfter.good >= oldBefore.good - 1 && oldAfter.wrong == 0)
        // The map's details: no build left; the session's status says done.
        #expect(service.details(after).build == nil)
    }
}
