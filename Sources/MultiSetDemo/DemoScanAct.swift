import Dispatch
import Foundation
import MultiSetSDK
import VPSGeometry
import VPSMap
import VPSServer
import VPSSimulation

/// The demo's scan act: the simulated phone scans the room through the SDK's `MapScanner` (an AR
/// session with drift), `ScanUploader` sends the scan over the socket, the server builds the map, and
/// walks then localize against it. The scanned map lives in the scan's AR frame (its poses adjusted by
/// the builder); the truth is compared after aligning that frame to the venue once (a rigid fit of the
/// map's keyframe centres to their true centres).
enum DemoScanAct {
    /// What the scan and its upload gave.
    struct Scan {
        var code: String
        var feedback: ScanFeedback
        var venueFromMap: Rigid3
        /// RMS of the alignment's residuals, metres (the drift left in the map that one rigid fit cannot
        /// remove).
        var alignmentRMS: Double
        /// The map's points in the venue frame.
        var points: [Vec3]
        var scanSeconds: Double, uploadSeconds: Double
        var retries: Int
    }

    /// Scans `venue`, uploads the scan to `server` and waits for its build.
    ///
    /// - Returns: nil when the scan is refused (its problems are printed) or the build fails.
    static func scan(
        venue: Venue, seed: UInt64, drift: Double, server: DemoServer, data: DataDirectory, folder: URL,
        say: (String) -> Void
    ) throws -> Scan? {
        let started = DispatchTime.now().uptimeNanoseconds
        // A phone session with `drift` per metre walked (and 0.5°/min of yaw drift per percent) and the
        // default noise. The builder adjusts the AR poses with the points (held to the AR relative poses
        // and gravity), which undoes the drift where the scan sees a place again.
        let session = ARSessionConfiguration(
            camera: DemoVenueMap.camera, frameInterval: 0.1, translationDriftPerMetre: drift,
            yawDriftDegreesPerMinute: 50 * drift)
        say(
            String(format: "  AR drift of the scan: %.1f %% of the distance, %.2f°/min of yaw", drift * 100, 50 * drift)
        )
        let trajectory = Trajectory.generate(.scan, in: venue, seed: seed &+ 40)
        var simulator = ARSessionSimulator(
            venue: venue, trajectory: trajectory, configuration: session, seed: seed &+ 41)
        let scanner = MapScanner(imageCodec: TurboImageCodec())
        try? FileManager.default.removeItem(at: folder)
        try scanner.start(in: folder, device: .init(model: "simulator", name: "demo scan of \(venue.name)"))
        var trueCentres: [Int: Vec3] = [:]
        var lastWarnings: [ScanWarning] = []
        var nextReport = 10.0
        // The scanner looks at every frame's pose; only candidates are rendered and measured.
        while let pose = simulator.next(renderingImage: false) {
            scanner.notifyTracking(SimulatedFrameSource.trackingSignal(pose.trackingState))
            if scanner.considerPose(timestamp: pose.timestamp, worldFromCamera: pose.arWorldFromCamera) == nil,
                let camera = SimulatedFrameSource.cameraFrame(pose, image: simulator.render(pose), quality: 90),
                case .kept(let index) = scanner.processCandidate(camera)
            {
                trueCentres[index] = pose.trueWorldFromCamera.translation
            }
            let f = scanner.feedback
            if f.warnings != lastWarnings && !f.warnings.isEmpty {
                say(
                    String(
                        format: "  %5.1f scan   warning: %@", pose.timestamp,
                        f.warnings.map(\.message).joined(separator: "; ")))
            }
            lastWarnings = f.warnings
            if pose.timestamp >= nextReport {
                nextReport += 10
                say(
                    String(
                        format:
                            "  %5.1f scan   %d keyframes, %.1f m walked, %.0f° of heading covered, %d blurred frames skipped",
                        pose.timestamp, f.keyframes, f.metresWalked, f.angularCoverageDegrees, f.blurredSkipped))
            }
        }
        let result = try scanner.finish()
        let scanSeconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let f = result.feedback
        say(
            String(
                format: "  scan finished: %d keyframes of %d frames in %.0f s, %.1f m walked, %.0f° covered; %@",
                f.keyframes, f.framesSeen, f.duration, f.metresWalked, f.angularCoverageDegrees,
                result.isReadyToUpload
                    ? "ready to upload" : "not fit: " + result.problems.map(\.description).joined(separator: "; ")))
        guard result.isReadyToUpload else { return nil }

        // Upload over the socket, then follow the build.
        let uploadStarted = DispatchTime.now().uptimeNanoseconds
        var policy = ScanRetryPolicy()
        policy.pollInterval = 0.25
        let uploader = ScanUploader(
            baseURL: server.baseURL, clientId: server.clientID, clientSecret: server.secret, policy: policy)
        let code = "MAP_DEMOSCAN" + String(format: "%04d", Int(seed % 10_000))
        // A code re-used from an earlier run: the old map goes first.
        if let old = try data.store.map(idOrCode: code, accountID: DataDirectory.defaultAccountID, kind: .map) {
            try data.store.deleteMap(id: old.id, accountID: DataDirectory.defaultAccountID)
        }
        let lines = ProgressLines()
        let name = "scan of \(venue.name)"
        let outcome = wait { () async throws(ScanError) -> ScanUploadOutcome in
            try await uploader.upload(result, name: name, code: code) { p in lines.note(p) }
        }
        for line in lines.lines { say(line) }
        let uploadSeconds = Double(DispatchTime.now().uptimeNanoseconds - uploadStarted) / 1e9
        let done: ScanUploadOutcome
        switch outcome {
        case .success(let o): done = o
        case .failure(let error):
            say("  upload failed: \(error)")
            return nil
        }
        let record = try data.store.map(idOrCode: done.mapCode, accountID: DataDirectory.defaultAccountID, kind: .map)
        guard let map = try record.map({ try MapFile.read(from: data.mapFile($0)) }) else { return nil }
        // Keyframe `frame_000012` is the scanner's keyframe 12: its centre in the map against the truth.
        var mapCentres: [Vec3] = []
        var venueCentres: [Vec3] = []
        for k in map.keyframes {
            guard let index = Int(k.name.dropFirst("frame_".count)), let truth = trueCentres[index] else { continue }
            mapCentres.append(CameraPose(k.camFromMap).center)
            venueCentres.append(truth)
        }
        guard let venueFromMap = alignRigid(source: mapCentres, target: venueCentres) else { return nil }
        let rms = alignmentResidualRMS(venueFromMap, source: mapCentres, target: venueCentres) ?? .nan
        let points = map.positions.map { venueFromMap * $0 }
        say(
            String(
                format:
                    "  map %@ built from the SDK's upload in %.1f s: %d points; the scan's frame aligned to the venue once (residual %.1f cm RMS)",
                done.mapCode, uploadSeconds, points.count, rms * 100))
        if let a = map.buildFunnel?.adjustment {
            say(
                String(
                    format:
                        "  pose adjustment: reprojection RMS %.2f → %.2f px, keyframes moved %.1f cm mean, %.1f cm at most",
                    a.initialRMS, a.finalRMS, 100 * a.meanCorrection, 100 * a.maxCorrection))
        }
        let q = MapQualityReport.report(map)
        say(
            String(
                format:
                    "  quality report: %d of %d keyframes see 30+ points; %.0f of %.0f m² rated good, localizability %.2f; %@",
                q.coveredKeyframes, q.keyframes, q.goodArea, q.scannedArea, q.localizability, q.advice))
        return Scan(
            code: done.mapCode, feedback: f, venueFromMap: venueFromMap, alignmentRMS: rms, points: points,
            scanSeconds: scanSeconds, uploadSeconds: uploadSeconds, retries: done.retries)
    }

    /// Runs an async upload from synchronous code.
    static func wait(
        _ body: @escaping @Sendable () async throws(ScanError) -> ScanUploadOutcome
    ) -> Result<ScanUploadOutcome, ScanError> {
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        Task {
            do throws(ScanError) { box.result = .success(try await body()) } catch { box.result = .failure(error) }
            done.signal()
        }
        done.wait()
        return box.result ?? .failure(.network("no result"))
    }

    private final class ResultBox: @unchecked Sendable {
        var result: Result<ScanUploadOutcome, ScanError>?
    }

    /// Upload progress as a few lines: every quarter of the upload and every build stage.
    final class ProgressLines: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [String] = []
        private var lastQuarter = -1
        private var lastStage = ""

        var lines: [String] { lock.withLock { stored } }

        func note(_ p: ScanUploadProgress) {
            lock.withLock {
                switch p {
                case .uploading(let done, let total, let bytes, _):
                    let quarter = total > 0 ? 4 * done / total : 4
                    if quarter != lastQuarter {
                        lastQuarter = quarter
                        stored.append(
                            String(format: "  upload  %d of %d images (%.1f MB)", done, total, Double(bytes) / 1e6))
                    }
                case .waitingForNetwork(let attempt, let seconds):
                    stored.append(String(format: "  upload  network lost; retry %d in %.0f s", attempt, seconds))
                case .building(let stage, let percent):
                    if stage != lastStage {
                        lastStage = stage
                        stored.append("  build   \(stage) (\(percent) %)")
                    }
                case .active(let code): stored.append("  build   done: \(code) is active")
                }
            }
        }
    }
}
