import Foundation
import MultiSetSDK
import Testing
import VPSCapture
import VPSGeometry
import VPSSimulation

/// The SDK's map scanner on a simulated AR session (small room, quarter-size frames, 10 Hz).
@Suite struct MapScannerTests {
    static let camera = Camera(fx: 240, fy: 240, cx: 160, cy: 120, width: 320, height: 240)

    /// Runs a scan of `duration` seconds of the room's scan trajectory through the scanner; returns the
    /// result, the decisions with their frames' timestamps, and the warnings seen.
    static func scan(
        duration: Double, seed: UInt64, configure: (inout ARSessionConfiguration) -> Void = { _ in },
        afterEachKeyframe: (URL, Int) -> Void = { _, _ in }
    ) throws -> (MapScanner.ScanResult, [(Double, ScanFrameDecision)], Set<ScanWarning>) {
        let venue = Venue.generate(.room, seed: seed)
        var configuration = ARSessionConfiguration(camera: camera, frameInterval: 0.1)
        configure(&configuration)
        let simulator = ARSessionSimulator(
            venue: venue, trajectory: Trajectory.generate(.scan, in: venue, duration: duration, seed: seed),
            configuration: configuration, seed: seed)
        let source = SimulatedFrameSource(simulator: simulator)
        let scanner = MapScanner(imageCodec: TurboImageCodec())
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scan-\(UUID().uuidString)")
        try scanner.start(in: folder, device: .init(model: "simulator", name: "test"))
        var decisions: [(Double, ScanFrameDecision)] = []
        var warnings = Set<ScanWarning>()
        while let frame = source.step() {
            scanner.notifyTracking(SimulatedFrameSource.trackingSignal(frame.trackingState))
            guard let decision = scanner.capture(from: source) else { continue }
            decisions.append((frame.timestamp, decision))
            warnings.formUnion(scanner.feedback.warnings)
            if case .kept(let index) = decision { afterEachKeyframe(folder, index) }
        }
        return (try scanner.finish(), decisions, warnings)
    }

    @Test func keepsAtMostTwoFramesPerSecondAndNoBlurredFrame() throws {
        let blur: [ARSessionConfiguration.BlurSpan] = [
            .init(start: 2, duration: 1, radius: 4), .init(start: 6.5, duration: 1.2, radius: 3),
            .init(start: 11, duration: 0.8, radius: 5),
        ]
        var crashSafe = true
        let (result, decisions, _) = try Self.scan(
            duration: 16, seed: 3, configure: { $0.blurSpans = blur },
            afterEachKeyframe: { folder, index in
                // What a crash right now would leave: a valid dataset holding every keyframe so far.
                let dataset = try? CaptureDataset.load(from: folder)
                if dataset?.frames.count != index + 1 { crashSafe = false }
            })
        defer { try? FileManager.default.removeItem(at: result.folder) }
        let kept = decisions.filter { if case .kept = $0.1 { true } else { false } }.map(\.0)
        let blurred = decisions.filter { $0.1 == .skipped(.blurred) }.map(\.0)
        print("scanner: \(kept.count) keyframes of \(decisions.count) frames in 16 s, \(blurred.count) blurred skipped")
        #expect(crashSafe)
        // ≤ 2 per second in every one-second window.
        for t in kept { #expect(kept.filter { $0 >= t && $0 < t + 1 - 1e-9 }.count <= 2) }
        // No kept frame in a blur span; every blur span's candidates were caught.
        for t in kept { #expect(!blur.contains { $0.contains(t) }, "kept a blurred frame at \(t) s") }
        for t in blurred { #expect(blur.contains { $0.contains(t) }, "a sharp frame at \(t) s was called blurred") }
        #expect(blurred.count >= 3)
        // Still a useful density: at least one keyframe per second outside the blur.
        #expect(kept.count >= 12)
        #expect(result.dataset.frames.count == kept.count)
        let loaded = try CaptureDataset.load(from: result.folder)
        #expect(loaded == result.dataset)
        #expect(result.feedback.keyframes == kept.count && result.feedback.metresWalked > 0.5)
        #expect(result.feedback.headingSectors >= 3)
    }

    @Test func aTooShortScanIsFlaggedBeforeUpload() throws {
        let (result, _, _) = try Self.scan(duration: 3, seed: 4)
        defer { try? FileManager.default.removeItem(at: result.folder) }
        #expect(!result.isReadyToUpload)
        #expect(result.problems.map(\.code) == ["SCAN_TOO_SHORT"])
        #expect(result.problems.first?.description.hasPrefix("The scan is too short") == true)
    }

    @Test func aTooDarkScanIsFlaggedLiveAndBeforeUpload() throws {
        let (result, _, warnings) = try Self.scan(duration: 14, seed: 5) { $0.sensor.gain = 0.08 }
        defer { try? FileManager.default.removeItem(at: result.folder) }
        #expect(warnings.contains(.tooDark))
        #expect(result.problems.map(\.code).contains("SCAN_TOO_DARK"))
        let (bright, _, brightWarnings) = try Self.scan(duration: 14, seed: 5)
        defer { try? FileManager.default.removeItem(at: bright.folder) }
        #expect(!brightWarnings.contains(.tooDark))
        #expect(!bright.problems.map(\.code).contains("SCAN_TOO_DARK"), "\(bright.problems)")
    }

    @Test func framesAreKeptOnlyWhileTrackingIsNormal() throws {
        let (result, decisions, warnings) = try Self.scan(duration: 8, seed: 6) {
            $0.trackingBreaks = [.init(start: 3, duration: 2, state: .limited(.insufficientFeatures))]
        }
        defer { try? FileManager.default.removeItem(at: result.folder) }
        #expect(warnings.contains(.trackingLimited) && warnings.contains(.tooFewFeatures))
        for (t, d) in decisions where t >= 3 && t < 5 - 1e-9 { #expect(d == .skipped(.tracking)) }
        #expect(result.dataset.frames.allSatisfy { $0.trackingState == "normal" })
    }
}
