import Foundation
import MultiSetSDK
import Testing
import VPSGeometry
import VPSImaging
import VPSMap
import VPSSimulation

@testable import VPSServer

/// Simulator → SDK → `multiset serve` (in process, loopback socket) → engine, with exact ground truth.
@Suite(.serialized) struct SDKEndToEndTests {
    static let camera = Camera(fx: 480, fy: 480, cx: 320, cy: 240, width: 640, height: 480)
    static let code = "MAP_SDKE2EROOM01"

    /// A served room map and a client's credentials.
    struct Served {
        let server: HTTPServer
        let base: String
        let clientID: String
        let secret: String
        let venue: Venue
        let root: URL
    }

    static func serve(_ kind: Venue.Kind = .room, seed: UInt64 = 31, every: Double = 1.5) throws -> Served {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sdk-e2e-\(UUID().uuidString)")
        let data = try DataDirectory(path: root.path)
        let venue = Venue.generate(kind, seed: seed, texelScale: 2)
        let renderer = Renderer(venue: venue)
        let scan = Trajectory.generate(.scan, in: venue, seed: seed)
        var frames: [MappingFrame] = []
        var images: [RGBImage] = []
        for t in stride(from: 0.0, through: scan.duration, by: every) {
            let pose = CameraPose(CameraAxes.cvPose(fromARKit: scan.worldFromCamera(at: t)).inverse)
            frames.append(MappingFrame(name: "f\(frames.count)", camera: camera, camFromMap: pose))
            images.append(renderer.render(camera: camera, camFromWorld: pose))
        }
        let frozen = images
        var options = MapBuildOptions()
        if kind == .aliasing { options.neighborsPerFrame = 6 }
        let (map, _) = try MapBuilder.build(
            frames: frames, loadImage: { frozen[$0] }, code: code, name: "room", options: options)
        try MapFile.write(map, to: data.mapFile(code: code))
        try data.store.createMap(
            MapRecord(
                id: Identifiers.newID(), accountID: DataDirectory.defaultAccountID, code: code, kind: .map,
                name: "room", description: "", status: .active, file: "maps/\(code).vpsmap", bytes: 1, failure: "",
                createdAt: 1, updatedAt: 1))
        let (clientID, secret) = try data.createClient(name: "sdk-e2e", hasher: SecretHasher(iterations: 1000))
        let metrics = Metrics()
        let service = VPSService(
            config: ServerConfig(dataDirectory: root.path), store: data.store,
            engine: LocalizerEngine(data: data, metrics: metrics), jwtKey: data.jwtKey, metrics: metrics)
        let server = try HTTPServer(port: 0, threads: 2) { service.handle($0) }
        return Served(
            server: server, base: "http://127.0.0.1:\(server.port)/v1", clientID: clientID, secret: secret,
            venue: venue, root: root)
    }

    /// Waits for the next localization outcome, re-arming nothing: a relocalization loop retries on its
    /// own 1.0 s timer (real clock here), so this just reads events until success or a reported failure.
    static func nextOutcome(
        _ iterator: inout AsyncStream<MultiSetEvent>.Iterator, sdk: MultiSet, maxAttempts: Int = 15
    ) async -> MultiSetEvent? {
        var attempts = 0
        while let event = await iterator.next() {
            switch event {
            case .localizationSuccess, .localizationFailure, .localizationFalsePositive: return event
            case .stageChanged(.capturing, _):
                attempts += 1
                if attempts > maxAttempts {
                    sdk.stopLocalization()
                    return nil
                }
            default: continue
            }
        }
        return nil
    }

    /// Where the anchor places the camera in the map, compared with the truth (metres).
    static func error(of result: LocalizationResult, frame: SimulatedFrame) -> Double {
        let worldFromMap = Rigid3(
            rotation: Quaternion(
                x: Double(result.rotation.vector.x), y: Double(result.rotation.vector.y),
                z: Double(result.rotation.vector.z), w: Double(result.rotation.vector.w)),
            translation: Vec3(Double(result.position.x), Double(result.position.y), Double(result.position.z)))
        let predicted = worldFromMap.inverse * frame.arWorldFromCamera.translation
        return (predicted - frame.trueWorldFromCamera.translation).norm
    }

    @Test func firstFixWithinFiveCentimetresAndRecoveryAfterATrackingBreak() async throws {
        let served = try Self.serve()
        defer {
            served.server.stop()
            try? FileManager.default.removeItem(at: served.root)
        }
        var configuration = ARSessionConfiguration.ideal(camera: Self.camera, frameInterval: 0.2)
        configuration.trackingBreaks = [
            .init(start: 6, duration: 1, state: .limited(.excessiveMotion), jumpDistance: 0.5, jumpYawDegrees: 4)
        ]
        let simulator = ARSessionSimulator(
            venue: served.venue, trajectory: Trajectory.generate(.walk, in: served.venue, duration: 30, seed: 5),
            configuration: configuration, seed: 5)
        let source = SimulatedFrameSource(simulator: simulator)
        let callbacks = DispatchQueue(label: "e2e.callbacks")
        let sdk = MultiSet(
            environment: MultiSetEnvironment(
                cacheDirectory: served.root.appendingPathComponent("cache"), logger: .silent,
                callbackQueue: callbacks))
        let scene = RecordingScene()
        sdk.setScene(scene)
        sdk.attach(frameSource: source)
        var iterator = sdk.events.makeAsyncIterator()

        var config = MultiSetConfig(clientId: served.clientID, clientSecret: served.secret, mapCode: Self.code)
        config.baseURL = served.base
        config.localizationMode = .singleFrame
        config.autoLocalize = false
        config.backgroundLocalization = false
        config.meshVisualization = false
        config.firstLocalizationUntilSuccess = true
        sdk.initialize(config: config, callback: NoCallback())
        var authenticated = false
        while let e = await iterator.next() {
            if e == .authenticationSuccess { authenticated = true }
            if case .authenticationFailure(let m) = e { Issue.record("auth failed: \(m)") }
            if authenticated || !sdk.isInitialized { break }
            if case .authenticationFailure = e { break }
        }
        #expect(authenticated)

        // Track until normal, then localize.
        func stepTo(time: Double) {
            while let frame = source.step() {
                sdk.notifyTracking(SimulatedFrameSource.trackingSignal(frame.trackingState))
                if frame.timestamp >= time { break }
            }
        }
        stepTo(time: 2)
        #expect(source.current?.trackingState == .normal)
        sdk.localize()
        let first = await Self.nextOutcome(&iterator, sdk: sdk)
        guard case .localizationSuccess(let result) = first, let frame = source.current else {
            Issue.record("no first fix: \(String(describing: first))")
            return
        }
        let e1 = Self.error(of: result, frame: frame)
        print("SDK end to end: first fix within \(e1 * 1000) mm, trust \(String(describing: result.trust))")
        #expect(e1 < 0.05)
        #expect(sdk.hasLocalized && sdk.anchorTrust == .provisional)

        // Through the tracking break: the SDK suspends, then relocalizes as soon as tracking is normal.
        var broke = false
        while let f = source.step() {
            sdk.notifyTracking(SimulatedFrameSource.trackingSignal(f.trackingState))
            if f.trackingState != .normal { broke = true }
            if broke && f.trackingState == .normal { break }
        }
        #expect(broke)
        let second = await Self.nextOutcome(&iterator, sdk: sdk)
        guard case .localizationSuccess(let recovered) = second, let after = source.current else {
            Issue.record("no recovery: \(String(describing: second))")
            return
        }
        let e2 = Self.error(of: recovered, frame: after)
        print("SDK end to end: recovered within \(e2 * 1000) mm after the break")
        #expect(e2 < 0.05)
        #expect(!sdk.isLocalizing)
        callbacks.sync {}
        #expect(scene.mapRootPose.position == recovered.position)
        sdk.release()
    }
}

extension SDKEndToEndTests {
    /// Counts of one pass through the aliasing venue.
    struct AliasingPass {
        var accepted = 0, wrongAccepted = 0, rejected = 0, failed = 0, rejectionsThatMovedTheScene = 0
    }

    /// Walks the aliasing venue with the SDK, localizing every other frame.
    static func aliasingPass(_ served: Served, confidenceCheck: Bool) async -> AliasingPass {
        let simulator = ARSessionSimulator(
            venue: served.venue, trajectory: Trajectory.generate(.walk, in: served.venue, duration: 40, seed: 5),
            configuration: .ideal(camera: camera, frameInterval: 0.5), seed: 5)
        let source = SimulatedFrameSource(simulator: simulator)
        let callbacks = DispatchQueue(label: "e2e.aliasing.callbacks")
        let sdk = MultiSet(
            environment: MultiSetEnvironment(
                cacheDirectory: served.root.appendingPathComponent("cache"), logger: .silent,
                callbackQueue: callbacks))
        let scene = RecordingScene()
        sdk.setScene(scene)
        sdk.attach(frameSource: source)
        var iterator = sdk.events.makeAsyncIterator()
        var config = MultiSetConfig(clientId: served.clientID, clientSecret: served.secret, mapCode: code)
        config.baseURL = served.base
        config.localizationMode = .singleFrame
        config.autoLocalize = false
        config.backgroundLocalization = false
        config.meshVisualization = false
        config.firstLocalizationUntilSuccess = false
        config.relocalization = false
        config.confidenceCheck = confidenceCheck
        sdk.initialize(config: config, callback: NoCallback())
        var pass = AliasingPass()
        while let e = await iterator.next() {
            if e == .authenticationSuccess { break }
            if case .authenticationFailure = e { return pass }
        }
        while let frame = source.step() {
            sdk.notifyTracking(SimulatedFrameSource.trackingSignal(frame.trackingState))
            guard frame.trackingState == .normal, frame.index % 2 == 0 else { continue }
            callbacks.sync {}
            let rootBefore = scene.mapRootPose
            sdk.localize()
            guard let outcome = await nextOutcome(&iterator, sdk: sdk) else { break }
            callbacks.sync {}
            switch outcome {
            case .localizationSuccess(let r):
                pass.accepted += 1
                let e = error(of: r, frame: frame)
                if e > 0.5 { pass.wrongAccepted += 1 }
                print(
                    "aliasing venue: accepted, \(e) m from the truth, confidence \(r.confidence ?? -1), margin \(r.inlierMargin ?? -1)"
                )
            case .localizationFalsePositive(let info):
                pass.rejected += 1
                print("aliasing venue: \(info.summary) [\(info.rejection), margin \(info.inlierMargin ?? -1)]")
                if scene.mapRootPose != rootBefore { pass.rejectionsThatMovedTheScene += 1 }
            default:
                pass.failed += 1
            }
        }
        sdk.release()
        print(
            "aliasing venue (confidenceCheck \(confidenceCheck)): \(pass.accepted) accepted "
                + "(\(pass.wrongAccepted) wrong), \(pass.rejected) rejected, \(pass.failed) failed")
        return pass
    }

    /// In the aliasing venue (room B is room A turned half a circle) the engine answers few queries,
    /// and some with the twin place. A fix that contradicts the anchor is reported as a false positive
    /// and leaves the scene untouched. (A wrong first fix cannot be caught: the first fix bootstraps
    /// the anchor unchecked, SPEC §9.5 step 2; the counts are printed for the engine's calibration.)
    @Test func aliasingVenueFalsePositiveIsReportedAndNotApplied() async throws {
        let served = try Self.serve(.aliasing, seed: 5, every: 2.0)
        defer {
            served.server.stop()
            try? FileManager.default.removeItem(at: served.root)
        }
        let gateOnly = await Self.aliasingPass(served, confidenceCheck: false)
        #expect(gateOnly.rejected >= 1)
        #expect(gateOnly.rejectionsThatMovedTheScene == 0)
        let checked = await Self.aliasingPass(served, confidenceCheck: true)
        #expect(checked.rejectionsThatMovedTheScene == 0)
    }
}

private final class NoCallback: MultiSetCallback, @unchecked Sendable {
    func onSDKReady() {}
    func onAuthenticationSuccess() {}
    func onAuthenticationFailure(error: String) {}
    func onLocalizationSuccess(result: LocalizationResult) {}
    func onLocalizationFailure(error: String) {}
    func onTrackingStateChanged(state: TrackingState) {}
}
