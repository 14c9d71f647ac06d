import Foundation
import MultiSetSDK
import MultiSetSampleKit
import Synchronization
import Testing

#if canImport(simd)
import simd
#endif

/// The scan screen's model over the real `MapScanner`, with synthetic frames (seeded noise texture,
/// the camera walking 0.3 m/s) and a stub upload.
@Suite struct ScanViewModelTests {
    /// Stores "JPEG" bytes as given: the scanner only writes them.
    struct StubCodec: ImageCodec {
        func encodeJPEG(_ image: RGBPixels, quality: Int) -> Data? { Data([0xFF, 0xD8, 0xFF, 0xD9]) }
        func decodeJPEG(_ data: Data) -> RGBPixels? { nil }
    }

    static func frame(_ t: Double, seed: UInt64) -> CameraFrame {
        var state = seed &+ UInt64(t * 1000)
        var pixels = Data(count: 160 * 120 * 3)
        for i in 0..<pixels.count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            pixels[i] = UInt8(truncatingIfNeeded: state >> 56)
        }
        return CameraFrame(
            image: .rgb8(pixels), intrinsics: CameraIntrinsics(fx: 120, fy: 120, cx: 80, cy: 60), width: 160,
            height: 120, cameraPosition: SIMD3<Float>(Float(0.3 * t), 1.5, 0),
            cameraRotation: simd_quatf(angle: Float(0.2 * t), axis: SIMD3<Float>(0, 1, 0)), timestamp: t)
    }

    static func feed(_ vm: ScanViewModel, seconds: Double) {
        for i in 0..<Int(seconds * 10) { vm.frameArrived(frame(Double(i) * 0.1, seed: 9), tracking: .normal) }
    }

    final class Calls: @unchecked Sendable {
        let uploads = Mutex(0)
        let targets = Mutex<[ScanTarget]>([])
        /// What the model delivers to its queue, run by the test when it chooses.
        let pending = Mutex<[@Sendable () -> Void]>([])

        func drain() {
            let work = pending.withLock { p in
                defer { p.removeAll() }
                return p
            }
            work.forEach { $0() }
        }
    }

    @Test func scanReviewUploadBuildAndLocalizeHere() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scan-vm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let calls = Calls()
        let vm = ScanViewModel(
            scanner: MapScanner(imageCodec: StubCodec()), folder: folder,
            upload: { result, target, progress throws(ScanError) in
                calls.uploads.withLock { $0 += 1 }
                progress(
                    .uploading(filesDone: 0, filesTotal: result.dataset.frames.count, bytesDone: 0, bytesTotal: 10))
                progress(.building(stage: "matching", percent: 55))
                calls.targets.withLock { $0.append(target) }
                return ScanUploadOutcome(uploadId: "u", mapCode: "MAP_SCANNEDLOBBY", mapId: "m", retries: 0)
            }, deliver: { work in calls.pending.withLock { $0.append(work) } })
        var changes = 0
        vm.onChange = { changes += 1 }
        #expect(vm.phase == .ready && vm.titleText == "Scan a map" && vm.primaryButtonTitle == "Start scanning")
        vm.mapName = "Lobby"

        // A scan that is too short is flagged before anything is uploaded.
        vm.tapPrimary()
        #expect(vm.phase == .scanning && vm.primaryButtonTitle == "Finish")
        Self.feed(vm, seconds: 3)
        #expect(vm.feedbackText == "6 frames · 0.9 m · 90°")
        vm.tapPrimary()
        guard case .review(let problems) = vm.phase else {
            Issue.record("no review: \(vm.phase)")
            return
        }
        #expect(problems.map(\.code) == ["SCAN_TOO_SHORT"])
        #expect(vm.titleText == "Scan not ready" && vm.primaryButtonTitle == "Scan again")
        #expect(vm.warningText?.hasPrefix("The scan is too short: 6 keyframes over 0.9 m") == true)

        // Scan again, long enough; upload; build; localize here.
        vm.tapPrimary()
        Self.feed(vm, seconds: 15)
        vm.finish()
        #expect(vm.phase == .review([]) && vm.primaryButtonTitle == "Upload")
        #expect((25...30).contains(vm.feedback.keyframes))
        let task = vm.startUpload()
        await task?.value
        #expect(vm.phase == .uploading && !vm.isPrimaryEnabled && vm.progressText == "Starting the upload")
        #expect(vm.progressFraction == 0)
        calls.drain()
        #expect(vm.phase == .done(mapCode: "MAP_SCANNEDLOBBY") && vm.progressFraction == 1)
        #expect(vm.progress == .building(stage: "matching", percent: 55))
        var localized: String?
        vm.onLocalizeHere = { localized = $0 }
        #expect(vm.primaryButtonTitle == "Localize here")
        vm.tapPrimary()
        #expect(localized == "MAP_SCANNEDLOBBY")
        #expect(calls.uploads.withLock { $0 } == 1)
        #expect(calls.targets.withLock { $0 } == [.newMap(name: "Lobby")])
        #expect(changes > 10)

        // "Extend this map": a second scan whose upload extends the same code.
        #expect(vm.canExtend)
        vm.extendThisMap()
        #expect(vm.phase == .scanning && vm.extendingMapCode == "MAP_SCANNEDLOBBY" && !vm.canExtend)
        #expect(vm.titleText == "Scanning more of the map…")
        Self.feed(vm, seconds: 15)
        vm.finish()
        #expect(vm.phase == .review([]) && vm.primaryButtonTitle == "Upload and extend")
        await vm.startUpload()?.value
        calls.drain()
        #expect(calls.targets.withLock { $0 } == [.newMap(name: "Lobby"), .extend(mapCode: "MAP_SCANNEDLOBBY")])
        #expect(vm.phase == .done(mapCode: "MAP_SCANNEDLOBBY") && vm.titleText == "Map extended")
        // Back to new maps.
        vm.scanNewMap()
        #expect(vm.phase == .ready && vm.extendingMapCode == nil && vm.titleText == "Scan a map")
    }

    @Test func aFailedBuildShowsTheBuildersReason() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scan-vm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let vm = ScanViewModel(
            scanner: MapScanner(imageCodec: StubCodec()), folder: folder,
            upload: { _, _, progress throws(ScanError) in
                progress(.waitingForNetwork(attempt: 1, seconds: 2))
                throw .buildFailed(code: "MAP_BUILD_TOO_THIN", message: "only 3 of 40 frames see 30 points")
            }, deliver: { $0() })
        vm.start()
        Self.feed(vm, seconds: 15)
        vm.finish()
        await vm.startUpload()?.value
        #expect(
            vm.phase
                == .failed(
                    code: "MAP_BUILD_TOO_THIN",
                    message: "The map build failed (MAP_BUILD_TOO_THIN): only 3 of 40 frames see 30 points"))
        #expect(vm.titleText == "Scan failed" && vm.primaryButtonTitle == "Scan again")
        #expect(vm.warningText?.contains("only 3 of 40 frames") == true)
    }
}
