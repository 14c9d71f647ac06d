import Foundation
import MultiSetSDK
import Synchronization
import Testing
import VPSCapture
import VPSGeometry
import VPSSimulation

@testable import VPSServer

/// The SDK's scanner and uploader against the server in process: a small scan of a room, uploaded
/// while the network drops, built once.
@Suite(.serialized) struct ScanUploadTests {
    static let camera = Camera(fx: 240, fy: 240, cx: 160, cy: 120, width: 320, height: 240)

    /// A scan of `duration` seconds of the room's scan trajectory at 5 Hz (quarter-size frames).
    static func scan(seed: UInt64, duration: Double, into folder: URL) throws -> MapScanner.ScanResult {
        let venue = Venue.generate(.room, seed: seed)
        let simulator = ARSessionSimulator(
            venue: venue, trajectory: Trajectory.generate(.scan, in: venue, duration: duration, seed: seed),
            configuration: ARSessionConfiguration(camera: camera, frameInterval: 0.2), seed: seed)
        let source = SimulatedFrameSource(simulator: simulator)
        let scanner = MapScanner(imageCodec: TurboImageCodec())
        try scanner.start(in: folder, device: .init(model: "simulator", name: "upload test"))
        while let frame = source.step() {
            scanner.notifyTracking(SimulatedFrameSource.trackingSignal(frame.trackingState))
            scanner.capture(from: source)
        }
        return try scanner.finish()
    }

    final class Recorder: @unchecked Sendable {
        let events = Mutex<[ScanUploadProgress]>([])
        let pauses = Mutex<[Double]>([])
    }

    @Test func theNetworkDropsMidUploadTheUploadResumesAndTheMapBuildsOnce() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("scan-upload-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let data = try DataDirectory(path: root.appendingPathComponent("data").path)
        let hasher = SecretHasher(iterations: 200)
        let (clientID, secret) = try data.createClient(name: "scanner", hasher: hasher)
        let service = VPSService(
            config: ServerConfig(dataDirectory: data.url.path), store: data.store, engine: LocalizerEngine(data: data),
            jwtKey: data.jwtKey, hasher: hasher)
        let scan = try Self.scan(seed: 11, duration: 24, into: root.appendingPathComponent("scan"))
        #expect(scan.isReadyToUpload, "\(scan.problems)")
        print(
            "scan upload: \(scan.feedback.keyframes) keyframes, \(String(format: "%.1f", scan.feedback.metresWalked)) m"
        )

        let transport = InProcessTransport(service: service)
        // Kill the network: the second files request never arrives, the third is stored but its
        // answer is lost, and the completion's answer is lost too (the client completes again).
        transport.inject(.dropRequest) { r, earlier in r.url.path.hasSuffix("/files") && earlier == 1 }
        transport.inject(.dropResponse) { r, earlier in r.url.path.hasSuffix("/files") && earlier == 2 }
        transport.inject(.dropResponse) { r, _ in r.url.path.hasSuffix("/complete") }
        var policy = ScanRetryPolicy()
        policy.filesPerRequest = 6
        let recorder = Recorder()
        let pollInterval = policy.pollInterval
        let uploader = ScanUploader(
            baseURL: "http://127.0.0.1/v1", clientId: clientID, clientSecret: secret, transport: transport,
            policy: policy,
            pause: { seconds in
                recorder.pauses.withLock { $0.append(seconds) }
                // Builds run on the server's queue: a poll pause lets it work (no clock to advance).
                if seconds == pollInterval { try? await Task.sleep(nanoseconds: 100_000_000) }
            })
        // Quarter-size frames of a scan turning mostly in place make a thin map: the build fails, and
        // the builder's reason reaches the client (the happy path is the life-cycle test's).
        var failure: ScanError?
        do {
            _ = try await uploader.upload(scan, name: "scanned room", code: "MAP_SCANUPLOAD01") { p in
                recorder.events.withLock { $0.append(p) }
            }
        } catch { failure = error }
        guard case .buildFailed(let code, let message)? = failure else {
            Issue.record("expected a thin-map failure, got \(String(describing: failure))")
            return
        }
        #expect(code == "MAP_BUILD_TOO_THIN")
        #expect(message.contains("too thin to localize in") && message.contains("dropped the most"))
        #expect(transport.dropped == 3)
        // Built once, however often the client completed.
        let completes = transport.log.filter { $0.hasSuffix("/complete") }.count
        #expect(completes == 2)
        let maps = try data.store.maps(accountID: DataDirectory.defaultAccountID, kind: .map, offset: 0, limit: 100)
        #expect(maps.items.filter { $0.name == "scanned room" }.count == 1)
        let record = try #require(maps.items.first { $0.code == "MAP_SCANUPLOAD01" })
        #expect(record.status == .failed && record.failure.hasPrefix("MAP_BUILD_TOO_THIN: "))
        // The job records the outcome, then removes the staged dataset.
        service.waitForBuilds()
        #expect(!FileManager.default.fileExists(atPath: data.stagingFolder(id: record.id).path))
        // The map's details carry the failure block.
        let details = service.details(record)
        #expect(details.failure?.code == "MAP_BUILD_TOO_THIN" && details.build == nil)
        let events = recorder.events.withLock { $0 }
        let fractions = events.map(\.fraction).filter { $0 > 0 }
        #expect(zip(fractions, fractions.dropFirst()).allSatisfy { $0 <= $1 + 1e-9 })
        #expect(
            events.contains {
                if case .uploading(let d, let t, _, _) = $0 { d == t && t == scan.dataset.frames.count } else { false }
            })
        #expect(events.contains { if case .building = $0 { true } else { false } })
        #expect(recorder.pauses.withLock { $0 }.first == 1.0)
        // The account's maps, as the Landing screen lists them.
        let listed = try await uploader.accountMaps()
        #expect(listed == [AccountMap(id: record.id, code: "MAP_SCANUPLOAD01", name: "scanned room", status: "failed")])
        print("scan upload: \(transport.log.count) requests, \(events.count) progress events, map \(record.id)")
    }

    @Test func aScanWithProblemsIsRefusedBeforeAnythingIsSent() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("scan-refused-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let scan = try Self.scan(seed: 12, duration: 2, into: root)
        let data = try DataDirectory(path: root.appendingPathComponent("data").path)
        let service = VPSService(
            config: ServerConfig(dataDirectory: data.url.path), store: data.store, engine: LocalizerEngine(data: data),
            jwtKey: data.jwtKey)
        let transport = InProcessTransport(service: service)
        let uploader = ScanUploader(
            baseURL: "http://127.0.0.1/v1", clientId: "x", clientSecret: "y", transport: transport, pause: { _ in })
        await #expect(throws: ScanError.notReady(scan.problems)) {
            try await uploader.upload(scan, name: "short")
        }
        #expect(transport.log.isEmpty)
    }
}
