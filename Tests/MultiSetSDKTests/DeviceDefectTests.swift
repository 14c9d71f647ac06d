import Foundation
import Testing
import VPSImaging

@testable import MultiSetSDK

#if canImport(simd)
import simd
#endif

/// The device-path defects of issue 15 that the SDK itself can show on Linux, each as the behaviour
/// that used to be wrong.
@Suite struct DeviceDefectTests {
    // MARK: D7: a second initialize keeps the callback in force

    @Test func secondInitializeDoesNotSwapTheCallback() {
        let h = SDKHarness()
        h.start()
        let second = RecordingCallback()
        h.sdk.initialize(config: SDKHarness.config(), callback: second)
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        #expect(SDKHarness.successes(h.events).count == 1)
        #expect(second.events.isEmpty)
        #expect(h.logs.lines.contains("Already initialized"))
    }

    /// An initialize that is refused for its config (not "already initialized") does adopt its callback:
    /// that callback is told why.
    @Test func refusedInitializeTellsItsOwnCallback() {
        let h = SDKHarness()
        let second = RecordingCallback()
        h.sdk.initialize(config: MultiSetConfig(), callback: second)
        h.flush()
        #expect(second.events == [.authenticationFailure("Missing clientId or clientSecret")])
    }

    // MARK: D4: opening the AR screen again

    /// A scene set after the fix (a new AR view) receives the map root and the mesh; no second load.
    @Test func aNewSceneGetsTheMapRootAndTheMeshes() throws {
        let h = RecoveryTests.meshHarness()
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        #expect(h.scene.mapMeshCodes == ["MAP_AAAAAAAAAAAA"])
        let loaded = h.events.filter { $0 == .meshLoaded(mapCode: "MAP_AAAAAAAAAAAA") }.count
        let reopened = RecordingScene()
        h.sdk.setScene(reopened)
        h.flush()
        let root = try #require(h.sdk.lastResult)
        #expect(
            reopened.calls == [
                .setMapRootPose(Pose(position: root.position, rotation: root.rotation)),
                .addMapMesh(
                    mapCode: "MAP_AAAAAAAAAAAA", bytes: Bodies.glb.count, localPose: .identity, visible: true),
            ])
        #expect(reopened.mapMeshVertexCounts == ["MAP_AAAAAAAAAAAA": 4])
        #expect(h.transport.requests("/files/download").count == 1)
        #expect(h.events.filter { $0 == .meshLoaded(mapCode: "MAP_AAAAAAAAAAAA") }.count == loaded)
        // The toggle reaches the new scene.
        h.sdk.setMeshVisible(false)
        h.flush()
        #expect(!reopened.mapMeshesVisible)
    }

    /// With relocalization off, the new AR session of a reopened screen (a replaced frame source) is a
    /// new world frame whose first fix is a first fix again: auto-localization starts.
    @Test func reopenedScreenAutoLocalizesWithRelocalizationOff() {
        let h = SDKHarness()
        h.start(
            SDKHarness.config {
                $0.autoLocalize = true
                $0.relocalization = false
            })
        h.advance(1.5)
        h.answerQuery(200, Bodies.single())
        #expect(h.sdk.hasLocalized && h.queries.count == 1)
        // The screen closes, then opens again with a new ARKit session and view.
        h.sdk.stopLocalization()
        h.sdk.attach(frameSource: FakeFrameSource(clock: h.clock))
        h.sdk.setScene(RecordingScene())
        h.sdk.startAutoLocalizationIfNeeded()
        h.advance(1.5)
        #expect(h.queries.count == 2)
        // And its first fix gets the silent retries again.
        h.answerQuery(200, Bodies.notFound)
        #expect(SDKHarness.failureMessages(h.events).isEmpty)
        #expect(h.sdk.isLocalizing)
    }

    // MARK: D6: localize() while recovering

    /// A tap while Suspended starts a foreground run; when it fails the recovery loop is still there.
    @Test func localizeWhileSuspendedKeepsTheRelocalizationLoop() {
        let h = SDKHarness()
        h.start()
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        h.sdk.notifyTracking(.limited(.excessiveMotion))
        #expect(!h.sdk.isLocalizing)
        h.sdk.localize()
        #expect(h.sdk.isShowingOverlay)
        // Tracking stays limited: the capture window closes without a frame.
        h.advance(3)
        #expect(SDKHarness.failureMessages(h.events) == ["No frames captured"])
        _ = h.newEvents()
        h.sdk.notifyTracking(.normal)
        // The loop starts its background run at once.
        #expect(h.queries.count == 2)
        #expect(h.newEvents().contains(.stageChanged(.capturing, isBackground: true)))
        h.answerQuery(200, Bodies.notFound)
        #expect(h.clock.pendingDelays == [1.0])
        #expect(SDKHarness.failureMessages(h.newEvents()).isEmpty)
    }

    // MARK: D3: a mesh the device cannot show is an error, not a success

    @Test func aMeshTheSceneRefusesIsReportedNotLoaded() {
        let h = SDKHarness()
        h.scene.refusesMeshes = "mesh too large for the renderer"
        let base = h.transport.handler
        h.transport.handler = RecoveryTests.meshRoutes(glb: Bodies.glb, base: base)
        h.start(SDKHarness.config { $0.meshVisualization = true })
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        let events = h.events
        #expect(events.contains(.meshLoadError("Mesh load failed: mesh too large for the renderer")))
        #expect(!events.contains(.meshLoaded(mapCode: "MAP_AAAAAAAAAAAA")))
        #expect(!h.sdk.hasMapMesh && !h.sdk.isMapMeshLoading)
    }

    @Test func aFileThatIsNotAValidGLBIsReportedNotLoaded() {
        let h = SDKHarness()
        let base = h.transport.handler
        h.transport.handler = RecoveryTests.meshRoutes(glb: Data("glTF\u{2}\0\0\0\0\0\0\0rest".utf8), base: base)
        h.start(SDKHarness.config { $0.meshVisualization = true })
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        let events = h.events
        #expect(events.contains(.meshLoadError("Mesh load failed: invalid GLB: header length 0 for 16 bytes")))
        #expect(!events.contains(.meshLoaded(mapCode: "MAP_AAAAAAAAAAAA")))
        #expect(h.scene.calls.allSatisfy { if case .addMapMesh = $0 { false } else { true } })
    }

    // MARK: The scene on the main actor, whatever the callback queue

    /// A scene that checks where it is called.
    /// Marks the main queue, which is the main actor's executor (on Linux under `dispatchMain()` a
    /// pool thread may drain it, so `Thread.isMainThread` is not the test).
    static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    final class ThreadCheckingScene: @unchecked Sendable {
        private let lock = NSLock()
        private var onMain: [Bool] = []
        var calls: [Bool] { lock.withLock { onMain } }
        fileprivate func note() {
            let main = DispatchQueue.getSpecific(key: DeviceDefectTests.mainQueueKey) == true
            lock.withLock { onMain.append(main) }
        }
    }

    @Test func sceneCallsRunOnTheMainActorWithACustomCallbackQueue() {
        _ = Self.mainQueueKey
        let h = SDKHarness()
        let scene = ThreadCheckingScene()
        h.sdk.setScene(scene)
        h.start()
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        h.sdk.resetSession()
        h.flush()
        #expect(scene.calls.count >= 3)
        #expect(scene.calls.allSatisfy { $0 })
    }

    // MARK: D1: frames that need re-encoding

    /// Without a codec a frame that must be turned fails at once with what went wrong, instead of five
    /// silent retries ending in "No frames captured".
    @Test func aFrameThatCannotBePreparedFailsAtOnceWithItsReason() {
        let h = SDKHarness()
        h.frames.orientation = .portrait
        h.start(SDKHarness.config { $0.firstLocalizationUntilSuccess = true })
        h.sdk.localize()
        let failures = SDKHarness.failureMessages(h.events)
        #expect(failures == ["Frame preparation failed: no image codec to re-encode the frame"])
        #expect(h.sdk.lastLocalizationError?.code == .framePreparationFailed)
        #expect(h.sdk.lastLocalizationError?.kind == .client)
        #expect(h.queries.isEmpty && !h.sdk.isLocalizing)
    }

    /// The live environment has a codec on every platform: the SDK's own on Linux.
    @Test func theLiveEnvironmentEncodes() throws {
        let live = MultiSetEnvironment.live
        let codec = try #require(live.imageCodec)
        #if !canImport(ImageIO)
        #expect(codec is SwiftImageCodec)
        #endif
        #expect(live.callbackQueue.label == DispatchQueue.main.label)
        #expect(live.frameQueue != nil)
    }

    /// A portrait RGB frame goes out as an upright JPEG within 960 px, with the SDK's own encoder.
    @Test func portraitRGBFramesAreSentUpright() throws {
        let h = SDKHarness(imageCodec: SwiftImageCodec())
        let (w, h0) = (1280, 960)
        var pixels = [UInt8](repeating: 0, count: w * h0 * 3)
        for y in 0..<h0 {
            for x in 0..<w {
                pixels[(y * w + x) * 3] = UInt8(x * 255 / w)
                pixels[(y * w + x) * 3 + 1] = UInt8(y * 255 / h0)
            }
        }
        h.frames.image = .rgb8(Data(pixels))
        h.frames.size = (w, h0)
        h.frames.intrinsics = CameraIntrinsics(fx: 1000, fy: 1000, cx: 640, cy: 480)
        h.frames.orientation = .portrait
        h.start()
        h.sdk.localize()
        let request = try #require(h.queries.first)
        let parts = try #require(Multipart.parts(request))
        let jpeg = try #require(parts["queryImage"])
        let decoded = try JPEG.decodeRGB([UInt8](jpeg))
        #expect(decoded.width == 720 && decoded.height == 960)
        // Upright: the sensor's top row (green 0) is now the right column, its left column (red 0) the top.
        let top = decoded.pixels[(5 * 720 + 360) * 3]
        let right = decoded.pixels[(480 * 720 + 714) * 3 + 1]
        #expect(top < 12 && right < 12)
        #expect(parts["fx"].map { String(decoding: $0, as: UTF8.self) } == "750")
        #expect(parts["px"].map { String(decoding: $0, as: UTF8.self) } == "360")
    }

    // MARK: Frame work off the caller's thread

    @Test func framesAreAcquiredAndPreparedOnTheFrameQueue() {
        let queue = DispatchQueue(label: "test.frames")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let h = SDKHarness(frameQueue: queue)
        h.frames.onAcquire = { DispatchQueue.getSpecific(key: key) == true }
        h.start()
        h.sdk.localize()
        queue.sync {}
        queue.sync {}
        h.flush()
        #expect(h.frames.acquisitionsOnQueue == [true])
        #expect(h.queries.count == 1)
    }
}

extension DeviceDefectTests.ThreadCheckingScene: MultiSetScene {
    nonisolated func setMapRootPose(_ pose: Pose) { note() }
    nonisolated func resetMapRoot() { note() }
    nonisolated func addMapMesh(_ mesh: MapMesh, visible: Bool, revealCenter: SIMD3<Float>) throws { note() }
    nonisolated func setMapMeshesVisible(_ visible: Bool) { note() }
    nonisolated func removeAllMapMeshes() { note() }
    nonisolated func placeObject(objectCode: String, pose: Pose) { note() }
    nonisolated func addObjectMesh(_ mesh: ObjectMesh) throws { note() }
    nonisolated func removeAllObjectMeshes() { note() }
}

/// Reads the fields of a multipart body (tests only).
enum Multipart {
    static func parts(_ request: HTTPRequest) -> [String: Data]? {
        guard let type = request.headers["Content-Type"], let range = type.range(of: "boundary=") else { return nil }
        let boundary = Data(("--" + type[range.upperBound...]).utf8)
        var out: [String: Data] = [:]
        let body = request.body
        var chunks: [Data] = []
        var start = body.startIndex
        while let r = body.range(of: boundary, in: start..<body.endIndex) {
            if r.lowerBound > start { chunks.append(body[start..<r.lowerBound]) }
            start = r.upperBound
        }
        for chunk in chunks {
            guard let headerEnd = chunk.range(of: Data("\r\n\r\n".utf8)) else { continue }
            let header = String(decoding: chunk[chunk.startIndex..<headerEnd.lowerBound], as: UTF8.self)
            guard let n = header.range(of: "name=\"") else { continue }
            let name = header[n.upperBound...].prefix { $0 != "\"" }
            var value = chunk[headerEnd.upperBound...]
            if value.suffix(2) == Data("\r\n".utf8) { value = value.dropLast(2) }
            out[String(name)] = Data(value)
        }
        return out
    }
}
