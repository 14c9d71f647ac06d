import Foundation
import Testing
import VPSGeometry
import VPSImaging
import VPSMap
import VPSProtocol
import VPSSimulation

@testable import VPSServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client written from SPEC's REST section only (token → query-form → pose) against the real
/// server on a loopback socket, with a map built from a synthetic room.
@Suite(.serialized) struct EndToEndTests {
    static let camera = Camera(fx: 480, fy: 480, cx: 320, cy: 240, width: 640, height: 480)

    @Test func tokenThenQueryFormAnswersTheTruePoseInBothHandednesses() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let data = try DataDirectory(path: root.path)
        // Map: a scan of a synthetic room with exact poses.
        let venue = Venue.generate(.room, seed: 31, texelScale: 2)
        let renderer = Renderer(venue: venue)
        let scan = Trajectory.generate(.scan, in: venue, seed: 31)
        var frames: [MappingFrame] = []
        var images: [RGBImage] = []
        for t in stride(from: 0.0, through: scan.duration, by: 1.5) {
            let pose = CameraPose(CameraAxes.cvPose(fromARKit: scan.worldFromCamera(at: t)).inverse)
            frames.append(MappingFrame(name: "f\(frames.count)", camera: Self.camera, camFromMap: pose))
            images.append(renderer.render(camera: Self.camera, camFromWorld: pose))
        }
        let frozen = images
        let code = "MAP_E2EROOM00001"
        let (map, _) = try MapBuilder.build(frames: frames, loadImage: { frozen[$0] }, code: code, name: "room")
        try MapFile.write(map, to: data.mapFile(code: code))
        try data.store.createMap(
            MapRecord(
                id: Identifiers.newID(), accountID: DataDirectory.defaultAccountID, code: code, kind: .map,
                name: "room", description: "",
                status: .active, file: "maps/\(code).vpsmap", bytes: 1, failure: "", createdAt: 1, updatedAt: 1))
        let (clientID, secret) = try data.createClient(name: "e2e", hasher: SecretHasher(iterations: 1000))

        let metrics = Metrics()
        let service = VPSService(
            config: ServerConfig(dataDirectory: root.path), store: data.store,
            engine: LocalizerEngine(data: data, metrics: metrics),
            jwtKey: data.jwtKey, metrics: metrics)
        let server = try HTTPServer(port: 0, threads: 2) { service.handle($0) }
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)/v1"

        // 1. Token (Basic credentials).
        var tokenRequest = URLRequest(url: URL(string: "\(base)/m2m/token")!)
        tokenRequest.httpMethod = "POST"
        tokenRequest.setValue(
            "Basic " + Data("\(clientID):\(secret)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        let (tokenData, _) = try await URLSession.shared.data(for: tokenRequest)
        let token = try JSONDecoder().decode(TokenResponse.self, from: tokenData).token

        // 2. A query from a viewpoint the scan never had.
        let walk = Trajectory.generate(.walk, in: venue, duration: 20, seed: 5)
        let worldFromARKit = walk.worldFromCamera(at: 6)
        let truth = CameraPose(CameraAxes.cvPose(fromARKit: worldFromARKit).inverse)
        let jpeg = try JPEG.encode(renderer.render(camera: Self.camera, camFromWorld: truth), quality: 90)
        func query(rightHanded: Bool) async throws -> SingleFrameQueryResponse {
            var request = URLRequest(url: URL(string: "\(base)/vps/map/query-form")!)
            request.httpMethod = "POST"
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            request.setValue(Multipart.contentType(boundary: "e2eBoundary"), forHTTPHeaderField: "Content-Type")
            let parts: [MultipartPart] = [
                .field("mapCode", code), .field("fx", "480"), .field("fy", "480"), .field("px", "320"),
                .field("py", "240"),
                .field("width", "640"), .field("height", "480"),
                .field("isRightHanded", rightHanded ? "true" : "false"),
                MultipartPart(name: "queryImage", filename: "q.jpg", contentType: "image/jpeg", data: jpeg),
            ]
            request.httpBody = Data(Multipart.encode(parts, boundary: "e2eBoundary"))
            let (body, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            return try JSONDecoder().decode(SingleFrameQueryResponse.self, from: body)
        }
        let rh = try await query(rightHanded: true)
        let lh = try await query(rightHanded: false)
        #expect(rh.poseFound && lh.poseFound)
        let p = try #require(rh.position), q = try #require(rh.rotation)
        let answered = Rigid3(rotation: Quaternion(x: q.x, y: q.y, z: q.z, w: q.w), translation: Vec3(p.x, p.y, p.z))
        let e = answered.error(to: worldFromARKit)
        print(
            "end to end: answered within \(e.translation * 1000) mm, \(degrees(e.rotation))°, confidence \(rh.confidence ?? -1)"
        )
        #expect(e.translation < 0.05 && degrees(e.rotation) < 1)
        // Left- and right-handed answers differ exactly by SPEC §15.3.
        let l = try #require(lh.position), lq = try #require(lh.rotation)
        #expect(abs(l.x + p.x) < 1e-9 && abs(l.y - p.y) < 1e-9 && abs(l.z - p.z) < 1e-9)
        #expect(abs(lq.x - q.z) < 1e-9 && abs(lq.y - q.w) < 1e-9 && abs(lq.z - q.x) < 1e-9 && abs(lq.w - q.y) < 1e-9)
        #expect(rh.mapCodes == [code] && (rh.confidence ?? 0) >= 0.2)
        // 3. A multi-image query: four frames of an AR session (its own world frame) with their tracking poses.
        var session = ARSessionSimulator(
            venue: venue, trajectory: Trajectory.generate(.walk, in: venue, duration: 20, seed: 6),
            configuration: .ideal(camera: Self.camera, frameInterval: 0.4), seed: 6)
        var parts: [MultipartPart] = [
            .field("mapCode", code), .field("fx", "480"), .field("fy", "480"), .field("px", "320"), .field("py", "240"),
            .field("width", "640"), .field("height", "480"), .field("isRightHanded", "true"),
        ]
        var firstTruth = Rigid3.identity
        for k in 1...4 {
            guard let frame = session.next() else { break }
            if k == 1 { firstTruth = frame.trueWorldFromCamera }
            let p = frame.arWorldFromCamera.translation, q = frame.arWorldFromCamera.rotation
            parts.append(
                MultipartPart(
                    name: "image\(k)", filename: "i\(k).jpg", data: try JPEG.encode(frame.image!, quality: 90)))
            parts.append(
                .field(
                    "image\(k)_data",
                    #"{"x":\#(p.x),"y":\#(p.y),"z":\#(p.z),"qx":\#(q.x),"qy":\#(q.y),"qz":\#(q.z),"qw":\#(q.w)}"#))
        }
        var multi = URLRequest(url: URL(string: "\(base)/vps/map/multi-image-query")!)
        multi.httpMethod = "POST"
        multi.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        multi.setValue(Multipart.contentType(boundary: "e2eMulti"), forHTTPHeaderField: "Content-Type")
        multi.httpBody = Data(Multipart.encode(parts, boundary: "e2eMulti"))
        let (multiBody, _) = try await URLSession.shared.data(for: multi)
        let m = try JSONDecoder().decode(MultiFrameQueryResponse.self, from: multiBody)
        #expect(m.poseFound)
        if let est = m.estimatedPose {
            let answeredMulti = Rigid3(
                rotation: Quaternion(x: est.rotation.x, y: est.rotation.y, z: est.rotation.z, w: est.rotation.w),
                translation: Vec3(est.position.x, est.position.y, est.position.z))
            let em = answeredMulti.error(to: firstTruth)
            print("end to end, 4 frames: within \(em.translation * 1000) mm, \(degrees(em.rotation))°")
            #expect(em.translation < 0.05 && degrees(em.rotation) < 1)
        }

        // The engine's stages reach /metrics: two single-frame and one multi-frame query, each
        // through every stage (the rig shares the single image's stages, retrieval included).
        let (text, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(server.port)/metrics")!)
        let exposition = String(decoding: text, as: UTF8.self)
        for stage in ["extract", "retrieve", "match", "pose", "margin"] {
            #expect(exposition.contains("vps_stage_seconds_count{stage=\"\(stage)\"} 3"))
        }
    }
}
