import Foundation
import MultiSetSDK
import VPSGeometry
import VPSMap

@testable import MultiSetSampleKit

#if canImport(simd)
import simd
#endif

/// An in-memory server the test scripts: token, plan, map and file answers at once; queries and mesh
/// downloads wait until the test answers them. Nothing mirrors the SDK's stages: the real SDK decides.
final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
    private struct Pending {
        let request: HTTPRequest
        let bodySent: @Sendable () -> Void
        let completion: @Sendable (Result<HTTPResponse, TransportError>) -> Void
    }

    private let lock = NSLock()
    private var pending: [Pending] = []
    private var sent: [HTTPRequest] = []
    /// The mesh the download serves.
    var glb = Data(
        GLB.mesh(
            positions: [Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)], colors: [200, 0, 0, 0, 200, 0, 0, 0, 200],
            triangles: [0, 1, 2]))

    private struct Done: TransportTask {
        func cancel() {}
    }

    func send(
        _ request: HTTPRequest, bodySent: @escaping @Sendable () -> Void,
        completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) -> any TransportTask {
        lock.withLock { sent.append(request) }
        let path = request.url.path
        func answer(_ body: String) {
            bodySent()
            completion(.success(HTTPResponse(status: 200, body: Data(body.utf8))))
        }
        if path.hasSuffix("/m2m/token") {
            answer(#"{"token":"t","expiresOn":"2099-01-01T00:00:00.000Z"}"#)
        } else if path.hasSuffix("/account/plan-details") {
            answer(#"{"watermark":true}"#)
        } else if path.hasSuffix("/vps/map/MAP_TEST00000001") {
            answer(#"{"_id":"0123456789abcdef01234567","mapMesh":{"rawMesh":{"meshLink":"m.glb"}}}"#)
        } else if path.hasSuffix("/file") {
            answer(#"{"url":"http://vps.test/v1/files/download?key=m"}"#)
        } else {
            lock.withLock { pending.append(Pending(request: request, bodySent: bodySent, completion: completion)) }
        }
        return Done()
    }

    /// Requests sent whose path ends with `suffix`.
    func count(_ suffix: String) -> Int { lock.withLock { sent.filter { $0.url.path.hasSuffix(suffix) }.count } }

    /// Queries sent so far.
    var queries: Int { count("/query-form") + count("/multi-image-query") }

    private func take(_ suffixes: [String]) -> Pending? {
        lock.withLock {
            guard let i = pending.firstIndex(where: { p in suffixes.contains { p.request.url.path.hasSuffix($0) } })
            else { return nil }
            return pending.remove(at: i)
        }
    }

    /// Reports the oldest waiting query's body as sent.
    func bodySent() {
        let p = lock.withLock { pending.first { $0.request.url.path.contains("query") } }
        p?.bodySent()
    }

    /// Answers the oldest waiting query.
    @discardableResult
    func answerQuery(_ status: Int = 200, _ body: String) -> Bool {
        guard let p = take(["/query-form", "/multi-image-query"]) else { return false }
        p.bodySent()
        p.completion(.success(HTTPResponse(status: status, body: Data(body.utf8))))
        return true
    }

    /// Serves the waiting mesh download.
    @discardableResult
    func serveMesh() -> Bool {
        guard let p = take(["/files/download"]) else { return false }
        p.completion(.success(HTTPResponse(status: 200, body: glb)))
        return true
    }
}

/// A camera that always has a new landscape JPEG frame, stamped with the virtual clock.
final class StillCamera: FrameSource, @unchecked Sendable {
    let clock: ManualScheduler
    private let lock = NSLock()
    private var n = 0

    init(clock: ManualScheduler) { self.clock = clock }

    func acquire() -> CameraFrame? {
        let k = lock.withLock {
            n += 1
            return n
        }
        return CameraFrame(
            image: .jpeg(Data([0xFF, 0xD8, 0xFF, 0xD9])),
            intrinsics: CameraIntrinsics(fx: 500, fy: 500, cx: 320, cy: 240),
            width: 640, height: 480, cameraPosition: SIMD3(0, 1.5, 0),
            cameraRotation: simd_quatf(ix: 0, iy: 0, iz: 0, r: 1),
            timestamp: clock.now() + Double(k) * 1e-6)
    }

    func resetWorldOrigin() {}
}

/// Runs every scheduled action on the UI queue, so the screen model's timers never overlap the SDK's
/// callbacks (the main queue does this in an app).
struct UIQueueScheduler: SDKScheduler {
    let clock: ManualScheduler
    let queue: DispatchQueue

    func schedule(after delay: TimeInterval, _ action: @escaping @Sendable () -> Void) -> any ScheduledTimer {
        clock.schedule(after: delay) { [queue] in queue.sync(execute: action) }
    }
}

/// The AR screen model over the real `MultiSet`: virtual clock, scripted server, a still camera, a
/// recording scene. The model lives on `ui`, the SDK's callback queue; the test touches it only
/// through ``ui(_:)``.
final class RealARHarness: @unchecked Sendable {
    let clock = ManualScheduler()
    let queue = DispatchQueue(label: "sample.tests.ui")
    let transport = ScriptedTransport()
    let scene = RecordingScene()
    let gps = FakeLocationProvider()
    let delegate = MultiSetSDKDelegate()
    let sdk: MultiSet
    let vm: ARLocalizationViewModel
    let camera: StillCamera
    let cache = FileManager.default.temporaryDirectory.appendingPathComponent("sample-ar-\(UUID().uuidString)")

    /// Authenticated, tracking normal, the screen not yet shown.
    init(_ config: MultiSetConfig = Fixtures.config(), mode: LocalizationMode? = nil, tracking: Bool = true) {
        camera = StillCamera(clock: clock)
        sdk = MultiSet(
            environment: MultiSetEnvironment(
                clock: clock, scheduler: clock, transport: transport, imageCodec: nil, cacheDirectory: cache,
                logger: .silent, callbackQueue: queue, frameQueue: nil))
        sdk.setLocationProvider(gps)
        sdk.setScene(scene)
        sdk.attach(frameSource: camera)
        var c = config
        c.baseURL = "http://vps.test/v1"
        sdk.initialize(config: c, callback: delegate)
        vm = ARLocalizationViewModel(
            sdk: sdk, delegate: delegate, localizationMode: mode,
            scheduler: UIQueueScheduler(clock: clock, queue: queue),
            clock: clock, locationProvider: gps)
        if tracking { sdk.notifyTracking(.normal) }
        drain()
    }

    deinit { try? FileManager.default.removeItem(at: cache) }

    /// Lets every delivered callback and scene call land (barriers, not sleeps).
    func drain() {
        for _ in 0..<3 {
            queue.sync {}
            DispatchQueue.main.sync {}
        }
        queue.sync {}
    }

    /// Runs `body` on the UI queue, then drains.
    @discardableResult
    func ui<T>(_ body: () -> T) -> T {
        let value = queue.sync(execute: body)
        drain()
        return value
    }

    func appear() { ui { vm.onAppear() } }

    /// Moves virtual time (SDK and screen timers), then drains.
    func advance(_ seconds: TimeInterval) {
        clock.advance(by: seconds)
        drain()
    }

    /// Answers the waiting query, then drains.
    func answer(_ status: Int = 200, _ body: String) {
        transport.answerQuery(status, body)
        drain()
    }

    /// Multi-frame capture of `frames` frames (first at once, then every 0.5 s).
    func captureAll(_ frames: Int = 4) {
        for _ in 1..<frames { advance(0.5) }
    }
}

/// Response bodies of the scripted server.
enum Answers {
    static func single(x: Double = 1, z: Double = 2) -> String {
        #"{"poseFound":true,"position":{"x":\#(x),"y":0,"z":\#(z)},"rotation":{"x":0,"y":0,"z":0,"w":1},"confidence":0.9,"mapCodes":["MAP_TEST00000001"]}"#
    }

    static func multi(x: Double = 1, z: Double = 2) -> String {
        #"{"poseFound":true,"estimatedPose":{"position":{"x":\#(x),"y":0,"z":\#(z)},"rotation":{"x":0,"y":0,"z":0,"w":1}},"confidence":0.9,"mapCodes":["MAP_TEST00000001"]}"#
    }

    static let notFound = #"{"poseFound":false,"message":"Pose not found"}"#
}
