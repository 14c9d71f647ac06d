import Foundation
import MultiSetSDK
import Testing

@testable import MultiSetSampleKit

/// One AR screen over a fake SDK and a virtual clock.
final class ARHarness {
    let sdk: FakeSDK
    let delegate = MultiSetSDKDelegate()
    let clock = ManualScheduler()
    let gps = FakeLocationProvider()
    let vm: ARLocalizationViewModel

    init(_ config: MultiSetConfig = Fixtures.config(), mode: LocalizationMode? = nil) {
        sdk = FakeSDK(config: config)
        sdk.isInitialized = true
        sdk.isAuthenticated = true
        vm = ARLocalizationViewModel(
            sdk: sdk, delegate: delegate, localizationMode: mode, scheduler: clock, clock: clock, locationProvider: gps)
    }

    /// Tracking normal, screen shown.
    func appear(tracking: Bool = true) {
        if tracking { delegate.onTrackingStateChanged(state: .tracking) }
        vm.onAppear()
    }

    func stage(_ s: LocalizationStage, background: Bool = false) {
        sdk.isShowingOverlay = s != .idle && !background
        sdk.isLocalizing = s != .idle
        delegate.onLocalizationStageChanged(stage: s, isBackground: background)
    }

    /// A whole run up to its `.idle`.
    func run(background: Bool = false, frames: Int = 4) {
        sdk.captureProgress = CaptureProgress(captured: 0, total: frames)
        stage(.capturing, background: background)
        sdk.captureProgress = nil
        stage(.uploading, background: background)
        stage(.awaitingResponse, background: background)
        stage(.idle, background: background)
    }
}

@Suite struct ARLocalizationLifecycleTests {
    @Test func appearInstallsCallbacksStartsGpsAndAutoLocalization() {
        var c = Fixtures.config()
        c.passGeoPose = true
        let h = ARHarness(c, mode: .singleFrame)
        h.appear()
        #expect(h.sdk.calls == [.setLocalizationMode(.singleFrame), .startGpsUpdates, .startAutoLocalizationIfNeeded])
        #expect(h.vm.isTrackingNormal && h.delegate.onLocalizationSuccess != nil)
        h.vm.onDisappear()
        #expect(h.sdk.calls.suffix(2) == [.stopLocalization, .stopGpsUpdates])
        #expect(h.clock.pendingCount == 0)
    }

    @Test func withoutGpsNoGpsCallsAndNoIndicator() {
        let h = ARHarness()
        h.appear()
        #expect(h.sdk.calls == [.startAutoLocalizationIfNeeded])
        #expect(h.vm.gpsIndicatorText == nil)
    }

    @Test func pollsEveryTenthOfASecond() {
        let h = ARHarness()
        h.appear()
        var changes = 0
        h.vm.onChange = { changes += 1 }
        #expect(h.clock.pendingDelays.count == 1 && abs(h.clock.pendingDelays[0] - 0.1) < 1e-9)
        h.sdk.isLocalizing = true
        h.sdk.hasMapMesh = true
        h.sdk.isMapMeshLoading = true
        h.sdk.watermarkClearance = 44
        #expect(!h.vm.isLocalizing)
        h.clock.advance(by: 0.05)
        #expect(!h.vm.isLocalizing)
        h.clock.advance(by: 0.05)
        #expect(h.vm.isLocalizing && h.vm.hasMapMesh && h.vm.isMeshLoading && h.vm.watermarkClearance == 44)
        #expect(changes == 1)
        h.clock.advance(by: 1)
        #expect(changes == 1)  // nothing changed: no notification
        h.vm.onDisappear()
        h.clock.advance(by: 1)
        #expect(h.clock.pendingCount == 0)
    }

    @Test func closeConfirmation() {
        let h = ARHarness()
        h.appear()
        h.vm.closeTapped()
        let alert = h.vm.presentedAlert
        #expect(alert?.title == "End localization?")
        #expect(alert?.buttons.map(\.title) == ["End", "Cancel"])
        h.vm.tap(alert!.buttons[1])
        #expect(h.vm.presentedAlert == nil && !h.vm.shouldNavigateBack)
        #expect(!h.sdk.calls.contains(.stopLocalization))
        h.vm.closeTapped()
        h.vm.tap(h.vm.presentedAlert!.buttons[0])
        #expect(h.vm.shouldNavigateBack)
        #expect(h.sdk.calls.suffix(2) == [.stopLocalization, .stopGpsUpdates])
    }

    @Test func localizeButtonFollowsTrackingAndRuns() {
        let h = ARHarness()
        h.appear(tracking: false)
        #expect(!h.vm.isLocalizeEnabled)
        h.vm.startLocalization()
        #expect(!h.sdk.calls.contains(.localize))
        h.delegate.onTrackingStateChanged(state: .tracking)
        #expect(h.vm.isLocalizeEnabled)
        h.vm.startLocalization()
        #expect(h.sdk.calls.last == .localize)
        h.sdk.isLocalizing = true
        h.clock.advance(by: 0.1)
        #expect(!h.vm.isLocalizeEnabled)
        h.sdk.isLocalizing = false
        h.clock.advance(by: 0.1)
        h.delegate.onTrackingStateChanged(state: .paused)
        #expect(!h.vm.isLocalizeEnabled)
    }
}

@Suite struct AROverlayTests {
    @Test func frameCaptureOverlayCountsImages() {
        let h = ARHarness()
        h.appear()
        h.sdk.captureProgress = CaptureProgress(captured: 0, total: 4)
        h.stage(.capturing)
        #expect(h.vm.frameCaptureOverlay?.progressText == "Capturing image 1 of 4")
        #expect(FrameCaptureOverlay.instruction == "Move your device slowly across the scene")
        #expect(h.vm.runStatus?.text == "Capturing 1/4")
        h.sdk.captureProgress = CaptureProgress(captured: 1, total: 4)
        h.clock.advance(by: 0.1)
        #expect(h.vm.frameCaptureOverlay?.progressText == "Capturing image 2 of 4")
        #expect(h.vm.runStatus?.text == "Capturing 2/4")
        h.sdk.captureProgress = CaptureProgress(captured: 4, total: 4)
        h.clock.advance(by: 0.1)
        #expect(h.vm.frameCaptureOverlay?.progressText == "Capturing image 4 of 4")
        #expect(h.vm.serverWaitOverlay == nil)
    }

    @Test func serverWaitOverlayThenResult() {
        let h = ARHarness()
        h.appear()
        h.stage(.capturing)
        h.stage(.uploading)
        #expect(h.vm.frameCaptureOverlay == nil)
        #expect(h.vm.serverWaitOverlay?.text == "Uploading…")
        #expect(h.vm.runStatus?.text == "Uploading…" && h.vm.runStatus?.symbol == .spinner)
        h.stage(.awaitingResponse)
        #expect(h.vm.serverWaitOverlay?.text == "Matching against the map…")
        #expect(h.vm.runStatus?.text == "Matching…")
        h.stage(.idle)
        #expect(h.vm.serverWaitOverlay == nil && !h.vm.isForegroundRun)
    }

    @Test func silentRetryGapKeepsTheWaitOverlay() {
        let h = ARHarness()
        h.appear()
        h.run()
        h.sdk.isShowingOverlay = true  // a foreground silent retry is due
        h.clock.advance(by: 0.1)
        #expect(h.vm.serverWaitOverlay?.text == "Matching against the map…")
        #expect(h.vm.frameCaptureOverlay == nil)
    }

    @Test func backgroundRunsShowOnlyOnTheCard() {
        let h = ARHarness()
        h.appear()
        h.sdk.captureProgress = CaptureProgress(captured: 0, total: 4)
        h.stage(.capturing, background: true)
        #expect(h.vm.frameCaptureOverlay == nil && h.vm.serverWaitOverlay == nil)
        #expect(h.vm.runStatus?.text == "Background · Capturing 1/4")
        #expect(h.vm.lastRunWasBackground)
        h.stage(.uploading, background: true)
        #expect(h.vm.runStatus?.text == "Background · Uploading…")
        h.stage(.awaitingResponse, background: true)
        #expect(h.vm.runStatus?.text == "Background · Matching…")
        h.stage(.idle, background: true)
        h.delegate.onLocalizationSuccess(result: Fixtures.result())
        #expect(h.vm.runStatus?.text == "Background · Localized" && h.vm.runStatus?.symbol == .tick)
        #expect(h.vm.toast == nil)
        h.run(background: true)
        h.delegate.onLocalizationFailure(error: "Pose not found")
        #expect(h.vm.runStatus?.text == "Background · Not localized")
        #expect(!h.vm.showFailureAlert && h.vm.presentedAlert == nil)
        h.run(background: true)
        h.delegate.onLocalizationFalsePositive(info: Fixtures.rejection())
        #expect(!h.vm.showFalsePositiveAlert && h.vm.toast == nil)
    }

    @Test func statusCardFadesAfterTwoSeconds() {
        let h = ARHarness()
        h.appear()
        h.run()
        h.delegate.onLocalizationSuccess(result: Fixtures.result())
        #expect(h.vm.runStatus?.text == "Localized" && h.vm.runStatus?.symbol == .tick)
        h.clock.advance(by: 1.9)
        #expect(h.vm.runStatus != nil)
        h.clock.advance(by: 0.1)
        #expect(h.vm.runStatus == nil)
        h.run()
        h.delegate.onLocalizationFailure(error: "Pose not found")
        #expect(h.vm.runStatus?.text == "Not localized" && h.vm.runStatus?.symbol == .redMark)
        h.clock.advance(by: 1)
        h.stage(.capturing)  // a new run replaces the fading card and cancels its fade
        h.clock.advance(by: 1.5)
        #expect(h.vm.runStatus?.text == "Capturing 1/4")
    }

    @Test func silentlyFailedRunEndsWithARedMark() {
        let h = ARHarness()
        h.appear()
        h.run(background: true)  // e.g. a relocalization attempt: no callback
        #expect(h.vm.runStatus?.text == "Background · Not localized" && h.vm.runStatus?.symbol == .redMark)
        h.clock.advance(by: 2)
        #expect(h.vm.runStatus == nil)
        h.stage(.capturing)
        h.stage(.idle)  // cancelled
        #expect(h.vm.runStatus?.text == "Not localized")
    }

    @Test func singleFrameCounts() {
        let h = ARHarness(Fixtures.config(mode: .singleFrame))
        h.appear()
        h.stage(.capturing)
        #expect(h.vm.frameCaptureOverlay?.progressText == "Capturing image 1 of 1")
        #expect(h.vm.runStatus?.text == "Capturing 1/1")
    }

    @Test func gpsIndicator() {
        var c = Fixtures.config()
        c.passGeoPose = true
        let h = ARHarness(c)
        h.appear()
        #expect(h.vm.gpsIndicatorText == "GPS searching…")
        h.gps.latest = GeoFix(
            latitude: 52.5, longitude: 13.4, altitude: 40, accuracy: 4.6, timestamp: h.clock.wallDate())
        h.clock.advance(by: 0.1)
        #expect(h.vm.gpsIndicatorText == "GPS ±5 m")
        h.clock.advance(by: 31)
        #expect(h.vm.gpsIndicatorText == "GPS searching…")  // older than 30 s
        h.gps.latest = GeoFix(latitude: 0, longitude: 0, altitude: 0, accuracy: 3, timestamp: h.clock.wallDate())
        h.clock.advance(by: 0.1)
        #expect(h.vm.gpsIndicatorText == "GPS searching…")  // invalid
    }

    @Test func meshLoadingBarAndToggle() {
        let h = ARHarness()
        h.appear()
        #expect(h.vm.meshLoadingText == nil && h.vm.meshToggleTitle == nil)
        h.sdk.isMapMeshLoading = true
        h.clock.advance(by: 0.1)
        #expect(h.vm.meshLoadingText == "Loading map mesh…")
        h.sdk.isMapMeshLoading = false
        h.sdk.hasMapMesh = true
        h.clock.advance(by: 0.1)
        #expect(h.vm.meshLoadingText == nil && h.vm.meshToggleTitle == "Hide Mesh")
        h.vm.toggleMeshVisibility()
        #expect(h.sdk.calls.last == .setMeshVisible(false) && h.vm.meshToggleTitle == "Show Mesh")
        h.clock.advance(by: 0.1)
        #expect(h.vm.meshToggleTitle == "Show Mesh")
        h.vm.toggleMeshVisibility()
        #expect(h.sdk.calls.last == .setMeshVisible(true) && h.vm.meshToggleTitle == "Hide Mesh")
    }
}

@Suite struct ARResultTests {
    @Test func successToastForTwoSeconds() {
        let h = ARHarness()
        h.appear()
        h.run()
        h.delegate.onLocalizationSuccess(result: Fixtures.result())
        #expect(h.vm.hasLocalized)
        #expect(h.vm.showToast && h.vm.toastMessage == "Localization successful" && h.vm.toast?.isSuccess == true)
        h.clock.advance(by: 1.99)
        #expect(h.vm.showToast)
        h.clock.advance(by: 0.01)
        #expect(!h.vm.showToast && h.vm.toastMessage == "")
    }

    @Test func noToastsOrAlertsWithoutShowAlerts() {
        let h = ARHarness(Fixtures.config(showAlerts: false))
        h.appear()
        h.run()
        h.delegate.onLocalizationSuccess(result: Fixtures.result())
        h.delegate.onLocalizationCorrected(from: .identity, to: .identity, trust: .trusted)
        #expect(h.vm.toast == nil)
        h.run()
        h.delegate.onLocalizationFailure(error: "Pose not found")
        h.run()
        h.delegate.onLocalizationFalsePositive(info: Fixtures.rejection())
        #expect(h.vm.presentedAlert == nil && h.vm.toast == nil)
        h.vm.resetWorldOrigin()
        #expect(h.vm.toast == nil)
        #expect(h.vm.runStatus == nil)
    }

    @Test func failureAlert() {
        let h = ARHarness()
        h.appear()
        h.run()
        h.delegate.onLocalizationFailure(error: "API error: HTTP 409: Map is not active")
        let alert = h.vm.presentedAlert
        #expect(h.vm.showFailureAlert)
        #expect(alert?.title == "Localization Failed")
        #expect(alert?.message == "The server rejected the request (HTTP 409).")
        #expect(alert?.buttons.map(\.title) == ["Localize Again", "Dismiss"])
        h.vm.tap(alert!.buttons[0])
        #expect(h.sdk.calls.last == .localize && !h.vm.showFailureAlert)
        h.run()
        h.delegate.onLocalizationFailure(error: "Pose not found")
        #expect(h.vm.failureAlertMessage.hasPrefix("Couldn't find your position in the map."))
        let count = h.sdk.calls.count
        h.vm.tap(h.vm.presentedAlert!.buttons[1])
        #expect(h.sdk.calls.count == count && h.vm.presentedAlert == nil)
    }

    @Test func failureWithoutARunIsForeground() {
        let h = ARHarness()
        h.appear()
        h.run(background: true)
        h.delegate.onLocalizationSuccess(result: Fixtures.result())
        h.delegate.onLocalizationFailure(error: "Not authenticated")
        #expect(h.vm.failureAlertMessage == "Not signed in. Check the credentials and try again.")
    }

    @Test func falsePositiveAlertTexts() {
        let h = ARHarness()
        h.appear()
        h.run()
        h.delegate.onLocalizationFalsePositive(info: Fixtures.rejection(.falsePositive, count: 1))
        #expect(h.vm.toastMessage == "Localization response received")
        let alert = h.vm.presentedAlert
        #expect(alert?.title == "Localization Discarded")
        #expect(
            alert?.message
                == "The result did not match your tracked position. Walk a few steps to a well-lit, distinctive area and localize again."
        )
        #expect(alert?.buttons.map(\.title) == ["Localize Again", "Reset & Start Over", "Dismiss"])
        #expect(h.vm.runStatus?.text == "Not localized")
        h.vm.tap(alert!.buttons[2])
        #expect(h.vm.presentedAlert == nil)

        h.run()
        h.delegate.onLocalizationFalsePositive(info: Fixtures.rejection(.suspectedAliasing, count: 2))
        #expect(
            h.vm.falsePositiveMessage
                == "This place looks like another part of the map. Trying again from here will not help; move somewhere more distinctive first."
        )
        h.vm.tap(h.vm.presentedAlert!.buttons[0])
        #expect(h.sdk.calls.last == .localize)

        h.run()
        h.delegate.onLocalizationFalsePositive(info: Fixtures.rejection(.reestablishing, count: 3))
        #expect(
            h.vm.falsePositiveMessage
                == "The result did not match your tracked position. Walk a few steps to a well-lit, distinctive area and localize again.\n\n3 responses were discarded in a row. If the map itself looks misplaced, choose Reset & Start Over; the next response becomes the new anchor."
        )
    }

    @Test func resetAndStartOver() {
        let h = ARHarness()
        h.appear()
        h.run()
        h.delegate.onLocalizationSuccess(result: Fixtures.result())
        h.run()
        h.delegate.onLocalizationFalsePositive(info: Fixtures.rejection(count: 4))
        #expect(
            h.vm.falsePositiveMessage.hasSuffix(
                "4 responses were discarded in a row. If the map itself looks misplaced, choose Reset & Start Over; the next response becomes the new anchor."
            ))
        h.vm.tap(h.vm.presentedAlert!.buttons[1])
        #expect(h.sdk.calls.suffix(2) == [.resetSession, .startAutoLocalizationIfNeeded])
        #expect(!h.vm.hasLocalized && h.vm.toastMessage == "World origin reset" && h.vm.presentedAlert == nil)
    }

    @Test func correctionToastWithDistanceAndTrust() {
        let h = ARHarness()
        h.appear()
        h.run()
        let from = Pose(position: SIMD3(0, 0, 0), rotation: Fixtures.identity)
        let to = Pose(position: SIMD3(3, 0, 4), rotation: Fixtures.identity)
        h.delegate.onLocalizationCorrected(from: from, to: to, trust: .corroborated)
        h.delegate.onLocalizationSuccess(result: Fixtures.result())
        #expect(h.vm.toastMessage == "Map re-anchored 5.0 m (corroborated)")
        // Background runs show the correction toast too.
        h.clock.advance(by: 2)
        h.run(background: true)
        h.delegate.onLocalizationCorrected(
            from: from, to: Pose(position: SIMD3(0.25, 0, 0), rotation: Fixtures.identity), trust: .trusted)
        h.delegate.onLocalizationSuccess(result: Fixtures.result())
        #expect(
            h.vm.toastMessage == "Map re-anchored 0.2 m (trusted)"
                || h.vm.toastMessage == "Map re-anchored 0.3 m (trusted)")
        #expect(h.vm.runStatus?.text == "Background · Localized")
        // The next foreground success shows its own toast again.
        h.clock.advance(by: 2)
        h.run()
        h.delegate.onLocalizationSuccess(result: Fixtures.result())
        #expect(h.vm.toastMessage == "Localization successful")
    }

    @Test func resetButton() {
        let h = ARHarness()
        h.appear()
        h.vm.resetWorldOrigin()
        #expect(h.sdk.calls.suffix(2) == [.resetSession, .startAutoLocalizationIfNeeded])
        #expect(h.vm.toastMessage == "World origin reset")
        h.clock.advance(by: 2)
        #expect(!h.vm.showToast)
    }
}
