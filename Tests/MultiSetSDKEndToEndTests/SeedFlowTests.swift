import Foundation
import MultiSetSampleKit
import Testing
import VPSGeometry
import VPSImaging
import VPSSimulation

@testable import MultiSetSDK
@testable import VPSServer

/// A phone's frames: the simulated session's upright view delivered as a sensor image in a turning
/// orientation (portrait, landscape-left, upside-down portrait, landscape), so the SDK has to turn
/// pixels, intrinsics and pose back itself (ARKit delivers landscape-right images whatever the
/// interface orientation).
final class TurningPhoneFrameSource: FrameSource, @unchecked Sendable {
    private let source: SimulatedFrameSource
    private let lock = NSLock()
    private var cache: (Double, CameraFrame)?
    private(set) var orientationsSent: [FrameOrientation] = []
    static let cycle: [FrameOrientation] = [.portrait, .landscapeLeft, .portraitUpsideDown, .landscape]

    init(_ source: SimulatedFrameSource) { self.source = source }

    func acquire() -> CameraFrame? {
        guard let upright = source.acquire(), case .jpeg(let jpeg) = upright.image else { return nil }
        if let (t, frame) = lock.withLock({ cache }), t == upright.timestamp { return frame }
        let orientation = Self.cycle[lock.withLock { orientationsSent.count } % Self.cycle.count]
        let back = 4 - orientation.clockwiseQuarterTurns
        guard let decoded = try? JPEG.decodeRGB(jpeg) else { return nil }
        let sensorPixels = PixelOperations.rotate(
            RGBPixels(data: Data(decoded.pixels), width: decoded.width, height: decoded.height),
            clockwiseQuarterTurns: back)
        let sensor = FrameGeometry(
            intrinsics: upright.intrinsics, width: upright.width, height: upright.height,
            worldFromCamera: FrameGeometry(upright).worldFromCamera, turns: back)
        // Half the frames as JPEG (the SDK decodes them), half as raw RGB.
        let image: FrameImage
        if orientation == .landscapeLeft,
            let file = try? JPEG.encode(
                RGBImage(width: sensorPixels.width, height: sensorPixels.height, pixels: [UInt8](sensorPixels.data)),
                quality: 95)
        {
            image = .jpeg(Data(file))
        } else {
            image = .rgb8(sensorPixels.data)
        }
        let frame = CameraFrame(
            image: image, intrinsics: sensor.intrinsics, width: sensor.width, height: sensor.height,
            cameraPosition: PoseConversion.float3(sensor.worldFromCamera.translation),
            cameraRotation: PoseConversion.quatf(sensor.worldFromCamera.rotation), orientation: orientation,
            timestamp: upright.timestamp)
        lock.withLock {
            cache = (upright.timestamp, frame)
            orientationsSent.append(orientation)
        }
        return frame
    }

    func resetWorldOrigin() { source.resetWorldOrigin() }
}

/// The seeds' delegate as a Linux program writes it: the sample kit's `MultiSetSDKDelegate`.
@Suite(.serialized) struct SeedFlowTests {
    /// Exactly the seeds' calls on `MultiSet.shared` (LandingView: `initialize(config:callback:)`;
    /// ARLocalizationView: `localize()`), fed frames of every orientation, against `multiset serve` on a
    /// socket: every run gets a pose, within 5 cm of the truth, and the map mesh the server exports reads
    /// back with the map's point count.
    @Test func seedsFlowOnMultiSetSharedGetsPosesFromTheServer() async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("seed-flow-\(UUID().uuidString)")
        setenv("XDG_CACHE_HOME", cache.path, 1)
        let served = try SDKEndToEndTests.serve()
        defer {
            served.server.stop()
            try? FileManager.default.removeItem(at: served.root)
            try? FileManager.default.removeItem(at: cache)
        }
        let simulator = ARSessionSimulator(
            venue: served.venue, trajectory: Trajectory.generate(.walk, in: served.venue, duration: 30, seed: 5),
            configuration: .ideal(camera: SDKEndToEndTests.camera, frameInterval: 0.2), seed: 5)
        let simulated = SimulatedFrameSource(simulator: simulator)
        let phone = TurningPhoneFrameSource(simulated)
        let scene = RecordingScene()
        MultiSet.shared.setScene(scene)
        MultiSet.shared.attach(frameSource: phone)
        var events = MultiSet.shared.events.makeAsyncIterator()

        // LandingView.
        let sdkDelegate = MultiSetSDKDelegate()
        var config = MultiSetConfig(
            clientId: served.clientID, clientSecret: served.secret, mapCode: SDKEndToEndTests.code)
        config.baseURL = served.base
        config.localizationMode = .singleFrame
        config.autoLocalize = false
        config.backgroundLocalization = false
        config.meshVisualization = true
        MultiSet.shared.initialize(config: config, callback: sdkDelegate)
        var authenticated = false
        while let e = await events.next() {
            if e == .authenticationSuccess { authenticated = true }
            if case .authenticationFailure(let m) = e { Issue.record("authentication failed: \(m)") }
            if authenticated || e != .sdkReady { break }
        }
        try #require(authenticated)
        #expect(await MainActor.run { sdkDelegate.isAuthenticated && sdkDelegate.statusText == "Authenticated" })

        // ARLocalizationView: tap Localize four times as the phone turns.
        var fixes = 0
        var meshVertices: Int?
        while fixes < 4, let frame = simulated.step() {
            MultiSet.shared.notifyTracking(SimulatedFrameSource.trackingSignal(frame.trackingState))
            guard frame.trackingState == .normal, frame.index % 8 == 0 else { continue }
            MultiSet.shared.localize()
            var outcome: MultiSetEvent?
            while let e = await events.next() {
                if case .meshLoaded = e { meshVertices = scene.mapMeshVertexCounts[SDKEndToEndTests.code] }
                switch e {
                case .localizationSuccess, .localizationFailure, .localizationFalsePositive: outcome = e
                default: continue
                }
                break
            }
            guard case .localizationSuccess(let result) = outcome else {
                Issue.record(
                    "frame \(frame.index) (\(phone.orientationsSent.last.map { "\($0)" } ?? "?")): \(String(describing: outcome))"
                )
                continue
            }
            let error = SDKEndToEndTests.error(of: result, frame: frame)
            print("seed flow: \(phone.orientationsSent.last!) frame \(frame.index): \(error * 1000) mm")
            #expect(error < 0.05)
            fixes += 1
        }
        #expect(fixes == 4)
        #expect(Set(phone.orientationsSent) == Set(FrameOrientation.allCases))
        // The mesh (the server's point-cloud GLB) reaches the scene with every point.
        if meshVertices == nil {
            while let e = await events.next() {
                if case .meshLoaded = e { break }
                if case .meshLoadError(let m) = e {
                    Issue.record("\(m)")
                    break
                }
            }
            meshVertices = scene.mapMeshVertexCounts[SDKEndToEndTests.code]
        }
        #expect(meshVertices == served.pointCount)
        MultiSet.shared.release()
        await Self.mainQueueTurn()
    }

    /// Returns once every block queued on the main queue before the call has run.
    static func mainQueueTurn() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in DispatchQueue.main.async { c.resume() }
        }
    }

    /// Upload progress over a real socket: a server that holds each query 300 ms shows every stage, the
    /// wait lasting at least 250 ms, with the overlays the seeds describe at each stage.
    @Test @MainActor func stagesAndOverlaysOverASocketWithASlowServer() async throws {
        let server = try HTTPServer(port: 0, threads: 2) { request in
            let json: String
            if request.path.hasSuffix("/m2m/token") {
                json = #"{"token":"t.e.s","expiresOn":"2099-01-01T00:00:00.000Z"}"#
            } else if request.path.hasSuffix("/account/plan-details") {
                json = #"{"watermark":false}"#
            } else if request.path.hasSuffix("/vps/map/query-form") {
                Thread.sleep(forTimeInterval: 0.3)
                json =
                    #"{"poseFound":true,"position":{"x":1,"y":0,"z":2},"rotation":{"x":0,"y":0,"z":0,"w":1},"confidence":0.9,"mapCodes":["MAP_AAAAAAAAAAAA"]}"#
            } else {
                return VPSServer.HTTPResponse(status: 404, body: Array(#"{"message":"no","code":"NOT_FOUND"}"#.utf8))
            }
            return VPSServer.HTTPResponse(
                status: 200, headers: [("Content-Type", "application/json")], body: Array(json.utf8))
        }
        defer { server.stop() }
        let frames = StillFrameSource()
        let sdk = MultiSet(environment: MultiSetEnvironment(logger: .silent))
        sdk.attach(frameSource: frames)
        sdk.notifyTracking(.normal)
        let delegate = MultiSetSDKDelegate()
        var config = MultiSetConfig(clientId: "id", clientSecret: "s", mapCode: "MAP_AAAAAAAAAAAA")
        config.baseURL = "http://127.0.0.1:\(server.port)/v1"
        config.localizationMode = .singleFrame
        config.autoLocalize = false
        config.backgroundLocalization = false
        config.meshVisualization = false
        let recorder = StageRecorder()
        // The screen model lives on the main actor, where the SDK's callbacks arrive.
        let screen = ARLocalizationViewModel(sdk: sdk, delegate: delegate, scheduler: DispatchScheduler(queue: .main))
        screen.onAppear()
        let forward = delegate.onLocalizationStageChanged
        delegate.onLocalizationStageChanged = { [weak screen] stage, background in
            forward?(stage, background)
            if let screen { recorder.record(stage, screen) }
        }
        var events = sdk.events.makeAsyncIterator()
        sdk.initialize(config: config, callback: delegate)
        while let e = await events.next(), e != .authenticationSuccess {
            if case .authenticationFailure(let m) = e { Issue.record("\(m)") }
        }
        sdk.localize()
        while let e = await events.next() {
            if case .localizationSuccess = e { break }
            if case .localizationFailure(let error) = e {
                Issue.record("\(error)")
                break
            }
        }
        // The stream hears of the result when it is queued; let the main queue deliver it to the screen.
        await Self.mainQueueTurn()
        let seen = recorder.entries
        #expect(seen.map(\.stage) == [.capturing, .uploading, .awaitingResponse, .idle])
        #expect(seen.map(\.overlay) == ["Capturing image 1 of 1", "Uploading…", "Matching against the map…", nil])
        #expect(seen.map(\.card) == ["Capturing 1/1", "Uploading…", "Matching…", "Not localized"])
        if seen.count == 4 {
            let waited = seen[3].time - seen[2].time
            print("upload progress: awaitingResponse lasted \(Int(waited * 1000)) ms against a 300 ms server")
            #expect(waited >= 0.25)
        }
        #expect(screen.runStatus.card?.text == "Localized")
        screen.onDisappear()
        sdk.release()
    }
}

/// One landscape JPEG frame, always new.
final class StillFrameSource: FrameSource, @unchecked Sendable {
    private let jpeg: Data
    private let start = DispatchTime.now().uptimeNanoseconds

    init() {
        let image = RGBImage(width: 640, height: 480, fill: (120, 130, 140))
        jpeg = Data((try? JPEG.encode(image, quality: 90)) ?? [])
    }

    func acquire() -> CameraFrame? {
        CameraFrame(
            image: .jpeg(jpeg), intrinsics: CameraIntrinsics(fx: 500, fy: 500, cx: 320, cy: 240), width: 640,
            height: 480, cameraPosition: SIMD3(0, 1.5, 0), cameraRotation: simd_quatf(ix: 0, iy: 0, iz: 0, r: 1),
            timestamp: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    func resetWorldOrigin() {}
}

/// What the screen showed at each stage callback, and when (main actor).
final class StageRecorder: @unchecked Sendable {
    struct Entry {
        var stage: LocalizationStage
        var overlay: String?
        var card: String?
        var time: Double
    }

    private let lock = NSLock()
    private var list: [Entry] = []
    var entries: [Entry] { lock.withLock { list } }

    func record(_ stage: LocalizationStage, _ vm: ARLocalizationViewModel) {
        let overlay = vm.frameCaptureOverlay?.progressText ?? vm.serverWaitOverlay?.text
        let entry = Entry(
            stage: stage, overlay: overlay, card: vm.runStatus.card?.text,
            time: Double(DispatchTime.now().uptimeNanoseconds) / 1e9)
        lock.withLock { list.append(entry) }
    }
}
