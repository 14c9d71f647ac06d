import Foundation
import MultiSetSDK
import Testing
import VPSGeometry
import VPSMap
import VPSProtocol
import VPSSimulation

@testable import VPSServer

/// The whole life cycle on Linux: the SDK's scanner scans a room (AR session with drift), the uploader
/// sends it over a loopback socket, the server builds the map, and the SDK localizes in it on a walk;
/// the truth is compared after aligning the map's frame (the scan's, its poses adjusted by the builder)
/// to the venue once.
@Suite(.serialized) struct ScanLifecycleTests {
    static let camera = Camera(fx: 480, fy: 480, cx: 320, cy: 240, width: 640, height: 480)

    /// Localizes every 3 s of the walk through the SDK (single-frame); counts answers within (5 cm, 1°) and
    /// wrong ones (beyond 0.5 m or 5°) once mapped into the venue. Its own function: Swift 6.3's optimizer
    /// sized the test function's async frame 8 bytes short with this loop inlined (AddressSanitizer: a
    /// write past the frame at the `try? await`; a heap corruption abort without it).
    static func localize(
        on source: SimulatedFrameSource, with sdk: MultiSet, venueFromMap: Rigid3
    ) async -> (good: Int, wrong: Int, queries: Int, errors: [(Double, Double)]) {
        var good = 0, wrong = 0, queries = 0
        var errors: [(Double, Double)] = []
        var t = 2.0
        while t < 23 {
            while let f = source.step() {
                sdk.notifyTracking(SimulatedFrameSource.trackingSignal(f.trackingState))
                if f.timestamp >= t { break }
            }
            t += 3
            guard let frame = source.current else { break }
            queries += 1
            guard let result = try? await sdk.localizeAndWait() else { continue }
            let est = result.estimatedRotation.vector, p = result.estimatedPosition
            let mapFromCamera = Rigid3(
                rotation: Quaternion(x: Double(est.x), y: Double(est.y), z: Double(est.z), w: Double(est.w)),
                translation: Vec3(Double(p.x), Double(p.y), Double(p.z)))
            let e = (venueFromMap * mapFromCamera).error(to: frame.trueWorldFromCamera)
            errors.append((e.translation, e.rotation * 180 / .pi))
            if e.translation <= 0.05 && e.rotation * 180 / .pi <= 1 { good += 1 }
            if e.translation > 0.5 || e.rotation * 180 / .pi > 5 { wrong += 1 }
        }
        return (good, wrong, queries, errors)
    }

    @Test func scanUploadBuildAndLocalizeInTheScannedMap() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("scan-life-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let data = try DataDirectory(path: root.appendingPathComponent("data").path)
        let (clientID, secret) = try data.createClient(name: "scan-life", hasher: SecretHasher(iterations: 1000))
        let box = ScanServiceBox()
        let server = try HTTPServer(port: 0, threads: 2) { request in
            box.service?.handle(request) ?? VPSServer.HTTPResponse(status: 503)
        }
        defer { server.stop() }
        var serverConfig = ServerConfig(dataDirectory: data.url.path)
        serverConfig.publicBaseURL = "http://127.0.0.1:\(server.port)"
        box.service = VPSService(
            config: serverConfig, store: data.store, engine: LocalizerEngine(data: data), jwtKey: data.jwtKey)
        let base = "http://127.0.0.1:\(server.port)/v1"

        // 1. Scan: every frame's pose goes to the scanner; only candidates are rendered. Keyframes are
        // spaced wider than on a phone (0.9 s) to keep the debug build's map small.
        let venue = Venue.generate(.room, seed: 31, texelScale: 2)
        var simulator = ARSessionSimulator(
            venue: venue, trajectory: Trajectory.generate(.scan, in: venue, seed: 31),
            configuration: ARSessionConfiguration(
                camera: Self.camera, frameInterval: 0.1, translationDriftPerMetre: 0.003,
                yawDriftDegreesPerMinute: 0.15),
            seed: 32)
        var policy = ScanKeyframePolicy()
        policy.minInterval = 0.9
        policy.minTranslation = 0.25
        policy.minRotationDegrees = 16
        let scanner = MapScanner(policy: policy, imageCodec: TurboImageCodec())
        try scanner.start(in: root.appendingPathComponent("scan"), device: .init(model: "simulator", name: "life"))
        var trueCentres: [Int: Vec3] = [:]
        while let frame = simulator.next(renderingImage: false) {
            scanner.notifyTracking(SimulatedFrameSource.trackingSignal(frame.trackingState))
            guard scanner.considerPose(timestamp: frame.timestamp, worldFromCamera: frame.arWorldFromCamera) == nil,
                let camera = SimulatedFrameSource.cameraFrame(frame, image: simulator.render(frame), quality: 90),
                case .kept(let index) = scanner.processCandidate(camera)
            else { continue }
            trueCentres[index] = frame.trueWorldFromCamera.translation
        }
        let scan = try scanner.finish()
        #expect(scan.isReadyToUpload, "\(scan.problems)")

        // 2. Upload over the socket; the server builds.
        var retry = ScanRetryPolicy()
        retry.pollInterval = 0.2
        let uploader = ScanUploader(baseURL: base, clientId: clientID, clientSecret: secret, policy: retry)
        let outcome = try await uploader.upload(scan, name: "scanned room", code: "MAP_SCANLIFE0001")
        let record = try #require(
            try data.store.map(idOrCode: outcome.mapCode, accountID: DataDirectory.defaultAccountID, kind: .map))
        #expect(record.status == .active)
        // The map's quality report, over the route.
        let token = try JSONDecoder().decode(
            TokenAnswer.self,
            from: Data(
                box.service!.handle(
                    VPSServer.HTTPRequest(
                        method: "POST", path: "/v1/m2m/token", headers: [("Username", clientID), ("Password", secret)])
                ).body)
        ).token
        let answer = box.service!.handle(
            VPSServer.HTTPRequest(
                method: "GET", path: "/v1/vps/map/\(outcome.mapCode)/quality",
                headers: [("Authorization", "Bearer \(token)")]))
        #expect(answer.status == 200)
        let quality = try JSONDecoder().decode(MapQualityJSON.self, from: Data(answer.body))
        print(
            "scan life cycle: quality \(quality.points) points, \(quality.coveredKeyframes)/\(quality.keyframes) keyframes covered, "
                + "\(quality.goodArea) of \(quality.scannedArea) m² good, localizability \(String(format: "%.2f", quality.localizability)); \(quality.advice)"
        )
        #expect(quality.keyframes == scan.dataset.frames.count && quality.points > 500)
        #expect(quality.scannedArea >= 3 && quality.goodArea >= 1 && quality.localizability > 0.3)
        #expect(quality.areas.allSatisfy { (0...1).contains($0.localizability) })
        // The map's keyframe `frame_000012` is the scanner's keyframe 12: its centre against the truth.
        let map = try MapFile.read(from: data.mapFile(record))
        #expect(map.buildFunnel?.adjustment != nil)
        let pairs = map.keyframes.compactMap { k -> (Vec3, Vec3)? in
            guard let i = Int(k.name.dropFirst("frame_".count)), let truth = trueCentres[i] else { return nil }
            return (CameraPose(k.camFromMap).center, truth)
        }
        let venueFromMap = try #require(alignRigid(source: pairs.map(\.0), target: pairs.map(\.1)))
        let rms = alignmentResidualRMS(venueFromMap, source: pairs.map(\.0), target: pairs.map(\.1)) ?? .nan
        #expect(rms < 0.01)

        // 3. Localize on a walk, single-frame, through the SDK.
        let walk = ARSessionSimulator(
            venue: venue, trajectory: Trajectory.generate(.walk, in: venue, duration: 24, seed: 33),
            configuration: ARSessionConfiguration(camera: Self.camera, frameInterval: 0.2), seed: 34)
        let source = SimulatedFrameSource(simulator: walk)
        let sdk = MultiSet(
            environment: MultiSetEnvironment(
                cacheDirectory: root.appendingPathComponent("cache"), logger: .silent,
                callbackQueue: DispatchQueue(label: "scan-life.callbacks")))
        sdk.attach(frameSource: source)
        var events = sdk.events.makeAsyncIterator()
        var config = MultiSetConfig(clientId: clientID, clientSecret: secret, mapCode: outcome.mapCode)
        config.baseURL = base
        config.localizationMode = .singleFrame
        config.autoLocalize = false
        config.backgroundLocalization = false
        config.meshVisualization = false
        sdk.initialize(config: config, callback: LifecycleCallback())
        while let e = await events.next() {
            if e == .authenticationSuccess { break }
            if case .authenticationFailure(let m) = e {
                Issue.record("auth failed: \(m)")
                return
            }
        }
        let (good, wrong, queries, errors) = await Self.localize(
            on: source, with: sdk, venueFromMap: venueFromMap)
        sdk.release()
        print(
            "scan life cycle: \(scan.feedback.keyframes) keyframes, alignment \(String(format: "%.1f", rms * 100)) cm RMS; "
                + "\(good) of \(queries) single-frame queries within (5 cm, 1°), \(wrong) wrong; errors \(errors.map { String(format: "%.1fcm/%.2f°", $0.0 * 100, $0.1) })"
        )
        #expect(queries >= 7)
        #expect(Double(good) >= 0.85 * Double(queries))
        #expect(wrong == 0)
    }
}

private struct TokenAnswer: Decodable {
    var token: String
}

private final class LifecycleCallback: MultiSetCallback, @unchecked Sendable {
    func onSDKReady() {}
    func onAuthenticationSuccess() {}
    func onAuthenticationFailure(error: String) {}
    func onLocalizationSuccess(result: LocalizationResult) {}
    func onLocalizationFailure(error: String) {}
    func onTrackingStateChanged(state: TrackingState) {}
}

/// The service behind a server started before it (set once, before the first request).
final class ScanServiceBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: VPSService?
    var service: VPSService? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
