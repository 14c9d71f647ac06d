import Foundation
import Testing
import VPSGeometry
import VPSMap

@testable import MultiSetSDK

/// An in-memory transport: records every request and answers through a handler, or keeps the
/// request pending until the test answers it.
final class FakeTransport: HTTPTransport, @unchecked Sendable {
    enum Reply {
        case respond(Int, String)
        case respondBytes(Int, Data)
        case fail(TransportError)
        case pending
    }

    final class Pending: @unchecked Sendable {
        let request: HTTPRequest
        let bodySent: @Sendable () -> Void
        let completion: @Sendable (Result<HTTPResponse, TransportError>) -> Void
        init(
            request: HTTPRequest, bodySent: @escaping @Sendable () -> Void,
            completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
        ) {
            self.request = request
            self.bodySent = bodySent
            self.completion = completion
        }
    }

    private let lock = NSLock()
    private(set) var requests: [HTTPRequest] = []
    private var pending: [Pending] = []
    var handler: (HTTPRequest) -> Reply = { _ in .pending }
    /// Whether a pending request reports "body sent" as soon as it is sent.
    var reportsBodySent = true

    func send(
        _ request: HTTPRequest, bodySent: @escaping @Sendable () -> Void,
        completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) -> any TransportTask {
        let reply: Reply = lock.withLock {
            requests.append(request)
            return handler(request)
        }
        switch reply {
        case .respond(let status, let body):
            bodySent()
            completion(.success(HTTPResponse(status: status, body: Data(body.utf8))))
        case .respondBytes(let status, let body):
            bodySent()
            completion(.success(HTTPResponse(status: status, body: body)))
        case .fail(let e): completion(.failure(e))
        case .pending:
            lock.withLock { pending.append(Pending(request: request, bodySent: bodySent, completion: completion)) }
            if reportsBodySent { bodySent() }
        }
        return NoTask()
    }

    /// Requests whose path ends with `suffix`.
    func requests(_ suffix: String) -> [HTTPRequest] {
        lock.withLock { requests.filter { $0.url.path.hasSuffix(suffix) } }
    }

    var pendingCount: Int { lock.withLock { pending.count } }

    /// Answers the oldest pending request (optionally the oldest whose path ends with `suffix`).
    @discardableResult
    func respond(_ status: Int, _ body: String, path suffix: String = "") -> Bool {
        guard let p = take(suffix) else { return false }
        p.completion(.success(HTTPResponse(status: status, body: Data(body.utf8))))
        return true
    }

    /// Fails the oldest pending request.
    @discardableResult
    func fail(_ error: TransportError, path suffix: String = "") -> Bool {
        guard let p = take(suffix) else { return false }
        p.completion(.failure(error))
        return true
    }

    private func take(_ suffix: String) -> Pending? {
        lock.withLock {
            guard let i = pending.firstIndex(where: { suffix.isEmpty || $0.request.url.path.hasSuffix(suffix) }) else {
                return nil
            }
            return pending.remove(at: i)
        }
    }

    private struct NoTask: TransportTask {
        func cancel() {}
    }
}

/// A frame source giving one landscape JPEG frame per call, stamped with the virtual clock.
final class FakeFrameSource: FrameSource, @unchecked Sendable {
    private let lock = NSLock()
    let clock: ManualScheduler
    var position = SIMD3<Float>(0, 1.5, 0)
    var rotation = simd_quatf(ix: 0, iy: 0, iz: 0, r: 1)
    var available = true
    var orientation = FrameOrientation.landscape
    var image = FrameImage.jpeg(Data([0xFF, 0xD8, 0xFF, 0xD9]))
    var size = (640, 480)
    var intrinsics = CameraIntrinsics(fx: 500, fy: 500, cx: 320, cy: 240)
    /// Called on every acquisition; its answers are kept in `acquisitionsOnQueue`.
    var onAcquire: (() -> Bool)?
    private(set) var acquisitionsOnQueue: [Bool] = []
    private(set) var resets = 0
    private(set) var acquired = 0

    init(clock: ManualScheduler) { self.clock = clock }

    func acquire() -> CameraFrame? {
        let n = lock.withLock {
            acquired += 1
            if let onAcquire { acquisitionsOnQueue.append(onAcquire()) }
            return acquired
        }
        guard available else { return nil }
        return CameraFrame(
            image: image, intrinsics: intrinsics, width: size.0, height: size.1, cameraPosition: position,
            cameraRotation: rotation, orientation: orientation, timestamp: clock.now() + Double(n) * 1e-6)
    }

    func resetWorldOrigin() { lock.withLock { resets += 1 } }
}

/// Records every callback as a ``MultiSetEvent``.
final class RecordingCallback: MultiSetCallback, @unchecked Sendable {
    private let lock = NSLock()
    private(set) var events: [MultiSetEvent] = []
    private(set) var failureStrings: [String] = []

    private func add(_ e: MultiSetEvent) { lock.withLock { events.append(e) } }

    func onSDKReady() { add(.sdkReady) }
    func onAuthenticationSuccess() { add(.authenticationSuccess) }
    func onAuthenticationFailure(error: String) { add(.authenticationFailure(error)) }
    func onLocalizationSuccess(result: LocalizationResult) { add(.localizationSuccess(result)) }
    /// The string callback; the typed one right after it is what `events` records.
    func onLocalizationFailure(error: String) { lock.withLock { failureStrings.append(error) } }
    func onLocalizationError(_ error: MultiSetError) { add(.localizationFailure(error)) }
    func onTrackingStateChanged(state: TrackingState) { add(.trackingStateChanged(state)) }
    func onLocalizationFalsePositive(info: FalsePositiveInfo) { add(.localizationFalsePositive(info)) }
    func onLocalizationCorrected(from: Pose, to: Pose, trust: AnchorTrust) {
        add(.localizationCorrected(from: from, to: to, trust: trust))
    }
    func onAnchorTrustChanged(trust: AnchorTrust) { add(.anchorTrustChanged(trust)) }
    func onLocalizationStageChanged(stage: LocalizationStage, isBackground: Bool) {
        add(.stageChanged(stage, isBackground: isBackground))
    }
    func onMeshLoaded(mapCode: String) { add(.meshLoaded(mapCode: mapCode)) }
    func onMeshLoadError(error: String) { add(.meshLoadError(error)) }
    func onObjectTrackingSuccess(objectCode: String, confidence: Double) {
        add(.objectTrackingSuccess(objectCode: objectCode, confidence: confidence))
    }
    func onObjectTrackingFailure(error: String) { add(.objectTrackingFailure(error)) }
    func onObjectMeshLoaded(objectCode: String) { add(.objectMeshLoaded(objectCode: objectCode)) }
}

/// Thread-safe log line collector.
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    func add(_ s: String) { lock.withLock { storage.append(s) } }
    var lines: [String] { lock.withLock { storage } }
}

/// A whole SDK over virtual time, a fake transport, a fake frame source and a recording scene.
final class SDKHarness: @unchecked Sendable {
    let clock = ManualScheduler()
    let transport = FakeTransport()
    let callbackQueue = DispatchQueue(label: "test.callbacks")
    let callback = RecordingCallback()
    let scene = RecordingScene()
    let logs = LogLines()
    let frames: FakeFrameSource
    let sdk: MultiSet
    let cacheDirectory: URL
    private var seen = 0

    static let token = "aaa.eyJleHAiOjB9.sig"

    /// Removes the harness's cache directory (mesh and map caches of the SDK under test).
    deinit { try? FileManager.default.removeItem(at: cacheDirectory) }

    /// Builds the harness; the token endpoint answers 200 with a one-hour token unless `auto` is off.
    init(
        autoToken: Bool = true, tokenLifetime: TimeInterval = 3600, imageCodec: (any ImageCodec)? = nil,
        frameQueue: DispatchQueue? = nil
    ) {
        frames = FakeFrameSource(clock: clock)
        cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("multiset-sdk-\(UUID())")
        let logs = self.logs
        let env = MultiSetEnvironment(
            clock: clock, scheduler: clock, transport: transport, imageCodec: imageCodec,
            cacheDirectory: cacheDirectory, logger: SDKLogger { logs.add($0) }, callbackQueue: callbackQueue,
            frameQueue: frameQueue)
        sdk = MultiSet(environment: env)
        sdk.setScene(scene)
        let clock = self.clock
        transport.handler = { request in
            let path = request.url.path
            if path.hasSuffix("/m2m/token") {
                guard autoToken else { return .pending }
                return .respond(200, Self.tokenBody(clock: clock, lifetime: tokenLifetime))
            }
            if path.hasSuffix("/account/plan-details") {
                return .respond(200, #"{"apiCalls":1,"storage":0,"mapsCount":1,"watermark":true}"#)
            }
            return .pending
        }
    }

    static func tokenBody(clock: ManualScheduler, lifetime: TimeInterval) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let expires = f.string(from: clock.wallDate().addingTimeInterval(lifetime))
        return #"{"token":"tok-\#(UUID().uuidString)","expiresOn":"\#(expires)"}"#
    }

    static func config(_ edit: (inout MultiSetConfig) -> Void = { _ in }) -> MultiSetConfig {
        var c = MultiSetConfig(clientId: "id", clientSecret: "secret", mapCode: "MAP_AAAAAAAAAAAA")
        c.baseURL = "http://vps.test/v1"
        c.autoLocalize = false
        c.backgroundLocalization = false
        c.localizationMode = .singleFrame
        c.meshVisualization = false
        edit(&c)
        return c
    }

    /// Attaches the frame source, reports normal tracking and initializes.
    func start(_ config: MultiSetConfig = SDKHarness.config(), tracking: Bool = true) {
        sdk.attach(frameSource: frames)
        if tracking { sdk.notifyTracking(.normal) }
        sdk.initialize(config: config, callback: callback)
        flush()
    }

    /// Waits for the callback queue and the main actor (scene calls) to drain, twice over, since a
    /// scene's answer about a mesh posts an event whose callbacks follow (barriers, not sleeps).
    func flush() {
        for _ in 0..<3 {
            callbackQueue.sync {}
            DispatchQueue.main.sync {}
        }
        callbackQueue.sync {}
    }

    /// All callbacks so far.
    var events: [MultiSetEvent] {
        flush()
        return callback.events
    }

    /// Callbacks since the previous call of `newEvents`.
    func newEvents() -> [MultiSetEvent] {
        let all = events
        defer { seen = all.count }
        return Array(all[seen...])
    }

    func advance(_ seconds: TimeInterval) {
        clock.advance(by: seconds)
        flush()
    }

    /// Query requests (single and multi-frame) sent so far.
    var queries: [HTTPRequest] { transport.requests("/query-form") + transport.requests("/multi-image-query") }

    /// Answers the pending query.
    @discardableResult
    func answerQuery(_ status: Int = 200, _ body: String) -> Bool {
        let ok =
            transport.respond(status, body, path: "query-form")
            || transport.respond(status, body, path: "multi-image-query")
        flush()
        return ok
    }

    static func failureMessages(_ events: [MultiSetEvent]) -> [String] {
        events.compactMap { if case .localizationFailure(let e) = $0 { return e.message } else { return nil } }
    }

    static func successes(_ events: [MultiSetEvent]) -> [LocalizationResult] {
        events.compactMap { if case .localizationSuccess(let r) = $0 { return r } else { return nil } }
    }

    static func stages(_ events: [MultiSetEvent]) -> [LocalizationStage] {
        events.compactMap { if case .stageChanged(let s, _) = $0 { return s } else { return nil } }
    }
}

/// Response bodies.
enum Bodies {
    /// A small coloured triangle mesh as the server exports it (VPSMap's GLB writer).
    static let glb = Data(
        GLB.mesh(
            positions: [Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)],
            colors: [255, 0, 0, 0, 255, 0, 0, 0, 255, 9, 9, 9], triangles: [0, 1, 2, 0, 2, 3]))

    /// A single-frame fix: camera at `position` with `rotation` in the map.
    static func single(
        x: Double = 1, y: Double = 0, z: Double = 2, q: (Double, Double, Double, Double) = (0, 0, 0, 1),
        confidence: Double = 0.9, margin: Double? = nil, map: String = "MAP_AAAAAAAAAAAA"
    ) -> String {
        let m = margin.map { #","inlierMargin":\#($0)"# } ?? ""
        return
            #"{"poseFound":true,"position":{"x":\#(x),"y":\#(y),"z":\#(z)},"rotation":{"x":\#(q.0),"y":\#(q.1),"z":\#(q.2),"w":\#(q.3)},"confidence":\#(confidence)\#(m),"mapIds":["a"],"mapCodes":["\#(map)"],"responseTime":5}"#
    }

    /// A multi-frame fix with `estimatedPose` and no tracking pose (image1's pose is used).
    static func multi(x: Double = 1, y: Double = 0, z: Double = 2, confidence: Double = 0.9) -> String {
        #"{"poseFound":true,"estimatedPose":{"position":{"x":\#(x),"y":\#(y),"z":\#(z)},"rotation":{"x":0,"y":0,"z":0,"w":1}},"confidence":\#(confidence),"mapCodes":["MAP_AAAAAAAAAAAA"],"responseTime":5}"#
    }

    static let notFound = #"{"poseFound":false,"message":"Pose not found"}"#
}
