import Foundation
import MultiSetSDK
import Testing

@testable import MultiSetSampleKit

#if canImport(simd)
import simd
#endif

/// The AR localization screen over the real SDK: every overlay, card, toast and alert comes from the
/// SDK's own callbacks and state, on virtual time.
enum ARConfig {
    /// Multi-frame, no auto-start, no background runs, no mesh unless asked.
    static func make(_ edit: (inout MultiSetConfig) -> Void = { _ in }) -> MultiSetConfig {
        var c = Fixtures.config()
        c.autoLocalize = false
        c.backgroundLocalization = false
        c.meshVisualization = false
        edit(&c)
        return c
    }
}

@Suite struct ARLocalizationLifecycleTests {
    @Test func appearStartsGpsAndAutoLocalizationDisappearStopsThem() {
        let h = RealARHarness(
            ARConfig.make {
                $0.passGeoPose = true
                $0.autoLocalize = true
                $0.localizationMode = .singleFrame
            }, mode: .singleFrame)
        h.appear()
        #expect(h.gps.started == 1)
        #expect(h.ui { h.vm.isTrackingNormal && h.delegate.onLocalizationSuccess != nil })
        #expect(h.transport.queries == 0)
        h.advance(1.5)
        #expect(h.transport.queries == 1)
        #expect(h.ui { h.vm.serverWaitOverlay?.text == "Uploading…" })
        h.ui { h.vm.onDisappear() }
        #expect(!h.sdk.isLocalizing && h.gps.stopped == 1)
    }

    @Test func appliesTheLandingModeOnAppear() {
        let h = RealARHarness(ARConfig.make(), mode: .singleFrame)
        h.appear()
        #expect(h.sdk.config?.localizationMode == .singleFrame)
    }

    @Test func localizeButtonFollowsTrackingAndRuns() {
        let h = RealARHarness(ARConfig.make(), tracking: false)
        h.appear()
        #expect(h.ui { !h.vm.isLocalizeEnabled })
        h.ui { h.vm.startLocalization() }
        #expect(h.transport.queries == 0 && !h.sdk.isLocalizing)
        h.sdk.notifyTracking(.normal)
        h.drain()
        #expect(h.ui { h.vm.isLocalizeEnabled })
        h.ui { h.vm.startLocalization() }
        h.advance(0.1)
        #expect(h.ui { !h.vm.isLocalizeEnabled && h.vm.isLocalizing })
        h.sdk.notifyTracking(.limited(.insufficientFeatures))
        h.drain()
        #expect(h.ui { !h.vm.isTrackingNormal })
    }

    @Test func closeConfirmation() {
        let h = RealARHarness(ARConfig.make())
        h.appear()
        h.ui { h.vm.startLocalization() }
        h.ui { h.vm.closeTapped() }
        let alert = h.ui { h.vm.presentedAlert }
        #expect(alert?.title == "End localization?")
        #expect(alert?.buttons.map(\.title) == ["End", "Cancel"])
        h.ui { h.vm.tap(alert!.buttons[1]) }
        #expect(h.ui { h.vm.presentedAlert == nil && !h.vm.shouldNavigateBack })
        #expect(h.sdk.isLocalizing)
        h.ui { h.vm.closeTapped() }
        h.ui { h.vm.tap(h.vm.presentedAlert!.buttons[0]) }
        #expect(h.ui { h.vm.shouldNavigateBack })
        #expect(!h.sdk.isLocalizing)
    }

    /// D5: Control Center or a permission prompt (`.inactive`) is not a background: the run goes on, the
    /// mesh stays; a real background and return start a new world frame.
    @Test func inactiveIsNotABackground() {
        let h = RealARHarness(
            ARConfig.make {
                $0.localizationMode = .singleFrame
                $0.meshVisualization = true
            })
        h.appear()
        h.ui { h.vm.startLocalization() }
        h.answer(200, Answers.single())
        h.transport.serveMesh()
        h.drain()
        #expect(h.scene.mapMeshesVisible && h.sdk.hasMapMesh)
        h.ui { h.vm.startLocalization() }
        h.ui { h.vm.scenePhaseChanged(.inactive) }
        #expect(h.sdk.isLocalizing && h.scene.mapMeshesVisible)
        h.ui { h.vm.scenePhaseChanged(.active) }
        h.answer(200, Answers.single())
        #expect(h.scene.mapMeshesVisible)
        #expect(h.ui { h.vm.toastMessage } == "Localization successful")
        // A real background: the return hides the mesh until the relocalization run's fix.
        h.ui { h.vm.scenePhaseChanged(.background) }
        h.ui { h.vm.scenePhaseChanged(.active) }
        #expect(!h.scene.mapMeshesVisible)
        #expect(h.transport.queries == 3)
        h.answer(200, Answers.single())
        #expect(h.scene.mapMeshesVisible)
    }
}

@Suite struct AROverlayTests {
    /// Capture, upload, wait and result of a multi-frame run, as the SDK reports them.
    @Test func multiFrameRunOverlaysAndCard() {
        let h = RealARHarness(ARConfig.make())
        h.appear()
        h.ui { h.vm.startLocalization() }
        #expect(h.ui { h.vm.frameCaptureOverlay?.progressText } == "Capturing image 2 of 4")
        #expect(h.ui { h.vm.runStatus.card?.text } == "Capturing 2/4")
        #expect(FrameCaptureOverlay.instruction == "Move your device slowly across the scene")
        h.advance(0.5)
        #expect(h.ui { h.vm.frameCaptureOverlay?.progressText } == "Capturing image 3 of 4")
        #expect(h.ui { h.vm.runStatus.card?.text } == "Capturing 3/4")
        h.advance(1.0)
        // Four frames: the request is on its way, its body not yet sent.
        #expect(h.ui { h.vm.frameCaptureOverlay == nil && h.vm.serverWaitOverlay?.text == "Uploading…" })
        #expect(h.ui { h.vm.runStatus.card?.text == "Uploading…" && h.vm.runStatus.card?.symbol == .spinner })
        h.transport.bodySent()
        h.drain()
        #expect(h.ui { h.vm.serverWaitOverlay?.text } == "Matching against the map…")
        #expect(h.ui { h.vm.runStatus.card?.text } == "Matching…")
        h.answer(200, Answers.multi())
        #expect(h.ui { h.vm.serverWaitOverlay == nil && !h.vm.isForegroundRun && h.vm.hasLocalized })
        #expect(h.ui { h.vm.runStatus.card?.text == "Localized" && h.vm.runStatus.card?.symbol == .tick })
        #expect(h.ui { h.vm.toastMessage } == "Localization successful")
        h.advance(1.9)
        #expect(h.ui { h.vm.runStatus.card != nil && h.vm.showToast })
        h.advance(0.1)
        #expect(h.ui { h.vm.runStatus.card == nil && !h.vm.showToast })
    }

    /// A first-until-success retry is a silent gap: the wait overlay stays, the card shows the red mark
    /// of the run that failed, no alert.
    @Test func silentRetryGapKeepsTheWaitOverlay() {
        let h = RealARHarness(ARConfig.make { $0.localizationMode = .singleFrame })
        h.appear()
        h.ui { h.vm.startLocalization() }
        h.answer(200, Answers.notFound)
        h.advance(0.1)
        #expect(h.ui { h.vm.serverWaitOverlay?.text } == "Matching against the map…")
        #expect(h.ui { h.vm.frameCaptureOverlay == nil && h.vm.presentedAlert == nil })
        #expect(h.ui { h.vm.runStatus.card?.text } == "Not localized")
        h.advance(0.9)
        #expect(h.transport.queries == 2)
        #expect(h.ui { h.vm.runStatus.card?.text } == "Uploading…")
    }

    /// Background refinements show only on the card, prefixed; their results raise no toast or alert.
    @Test func backgroundRunsShowOnlyOnTheCard() {
        let h = RealARHarness(
            ARConfig.make {
                $0.localizationMode = .singleFrame
                $0.backgroundLocalization = true
                $0.bgLocalizationDurationSeconds = 10
                $0.firstLocalizationUntilSuccess = false
            })
        h.appear()
        h.ui { h.vm.startLocalization() }
        h.answer(200, Answers.single())
        h.advance(2)
        h.advance(8)
        #expect(h.transport.queries == 2)
        #expect(h.ui { h.vm.frameCaptureOverlay == nil && h.vm.serverWaitOverlay == nil && h.vm.lastRunWasBackground })
        #expect(h.ui { h.vm.runStatus.card?.text } == "Background · Uploading…")
        h.answer(200, Answers.single())
        #expect(h.ui { h.vm.runStatus.card?.text } == "Background · Localized")
        #expect(h.ui { h.vm.toast == nil })
        h.advance(10)
        h.answer(200, Answers.notFound)
        #expect(h.ui { h.vm.runStatus.card?.text } == "Background · Not localized")
        #expect(h.ui { h.vm.presentedAlert == nil })
    }

    @Test func singleFrameCounts() {
        let h = RealARHarness(ARConfig.make { $0.localizationMode = .singleFrame })
        h.sdk.notifyTracking(.limited(.other))
        h.appear()
        h.sdk.notifyTracking(.normal)
        h.drain()
        h.ui { h.vm.startLocalization() }
        // Single frame: sent at once.
        #expect(h.ui { h.vm.runStatus.card?.text } == "Uploading…")
        #expect(h.sdk.config?.localizationMode == .singleFrame)
    }

    @Test func gpsIndicator() {
        let h = RealARHarness(ARConfig.make { $0.passGeoPose = true })
        h.appear()
        #expect(h.ui { h.vm.gpsIndicatorText } == "GPS searching…")
        h.gps.latest = GeoFix(
            latitude: 52.5, longitude: 13.4, altitude: 40, accuracy: 4.6, timestamp: h.clock.wallDate())
        h.advance(0.1)
        #expect(h.ui { h.vm.gpsIndicatorText } == "GPS ±5 m")
        h.advance(31)
        #expect(h.ui { h.vm.gpsIndicatorText } == "GPS searching…")
        h.gps.latest = GeoFix(latitude: 0, longitude: 0, altitude: 0, accuracy: 3, timestamp: h.clock.wallDate())
        h.advance(0.1)
        #expect(h.ui { h.vm.gpsIndicatorText } == "GPS searching…")
    }

    /// The loading bar while the mesh downloads, then the toggle, which really hides and shows it.
    @Test func meshLoadingBarAndToggle() {
        let h = RealARHarness(
            ARConfig.make {
                $0.localizationMode = .singleFrame
                $0.meshVisualization = true
            })
        h.appear()
        #expect(h.ui { h.vm.meshLoadingText == nil && h.vm.meshToggleTitle == nil })
        h.ui { h.vm.startLocalization() }
        h.answer(200, Answers.single())
        h.advance(0.1)
        #expect(h.ui { h.vm.meshLoadingText } == "Loading map mesh…")
        #expect(h.transport.serveMesh())
        h.drain()
        h.advance(0.1)
        #expect(h.sdk.hasMapMesh)
        #expect(h.ui { h.vm.meshLoadingText == nil && h.vm.meshToggleTitle == "Hide Mesh" })
        #expect(h.scene.mapMeshCodes == ["MAP_TEST00000001"] && h.scene.mapMeshesVisible)
        h.ui { h.vm.toggleMeshVisibility() }
        #expect(!h.scene.mapMeshesVisible && h.ui { h.vm.meshToggleTitle } == "Show Mesh")
        h.advance(0.1)
        #expect(h.ui { h.vm.meshToggleTitle } == "Show Mesh")
        h.ui { h.vm.toggleMeshVisibility() }
        #expect(h.scene.mapMeshesVisible && h.ui { h.vm.meshToggleTitle } == "Hide Mesh")
    }
}

@Suite struct ARResultTests {
    @Test func noToastsOrAlertsWithoutShowAlerts() {
        let h = RealARHarness(
            ARConfig.make {
                $0.showAlerts = false
                $0.localizationMode = .singleFrame
                $0.firstLocalizationUntilSuccess = false
            })
        h.appear()
        h.ui { h.vm.startLocalization() }
        h.answer(200, Answers.single())
        h.ui { h.vm.startLocalization() }
        h.answer(200, Answers.notFound)
        #expect(h.ui { h.vm.presentedAlert == nil && h.vm.toast == nil })
        h.ui { h.vm.resetWorldOrigin() }
        #expect(h.ui { h.vm.toast == nil && h.vm.runStatus.card == nil })
    }

    /// The failure alert, and its `Localize Again`, which only runs while `Localize` is enabled.
    @Test func failureAlertAndLocalizeAgain() {
        let h = RealARHarness(
            ARConfig.make {
                $0.localizationMode = .singleFrame
                $0.firstLocalizationUntilSuccess = false
            })
        h.appear()
        h.ui { h.vm.startLocalization() }
        h.answer(409, #"{"message":"Map is not active","code":"MAP_NOT_ACTIVE"}"#)
        let alert = h.ui { h.vm.presentedAlert }
        #expect(alert?.title == "Localization Failed")
        #expect(alert?.message == "The server rejected the request (HTTP 409).")
        #expect(alert?.buttons.map(\.title) == ["Localize Again", "Dismiss"])
        #expect(h.ui { h.vm.runStatus.card?.text } == "Not localized")
        h.ui { h.vm.tap(alert!.buttons[0]) }
        #expect(h.transport.queries == 2 && h.ui { h.vm.presentedAlert == nil })
        h.answer(200, Answers.notFound)
        #expect(h.ui { h.vm.failureAlertMessage.hasPrefix("Couldn't find your position in the map.") })
        // Tracking lost while the alert shows: Localize Again does nothing (it used to bypass the check).
        h.sdk.notifyTracking(.limited(.excessiveMotion))
        h.drain()
        h.ui { h.vm.tap(h.vm.presentedAlert!.buttons[0]) }
        #expect(h.transport.queries == 2 && !h.sdk.isLocalizing)
        #expect(h.ui { h.vm.presentedAlert == nil })
    }

    /// A trusted anchor (multi-frame bootstrap) discards a far answer: toast, alert, card; three in a row
    /// point to the reset, whose button starts over.
    @Test func falsePositiveAlertAndResetAndStartOver() {
        let h = RealARHarness(ARConfig.make { $0.firstLocalizationUntilSuccess = false })
        h.appear()
        h.ui { h.vm.startLocalization() }
        h.captureAll()
        h.answer(200, Answers.multi())
        #expect(h.sdk.anchorTrust == .trusted)
        h.advance(2)
        h.ui { h.vm.startLocalization() }
        h.captureAll()
        h.answer(200, Answers.multi(x: 30))
        #expect(h.ui { h.vm.toastMessage } == "Localization response received")
        var alert = h.ui { h.vm.presentedAlert }
        #expect(alert?.title == "Localization Discarded")
        #expect(alert?.message == FalsePositiveText.mismatch)
        #expect(alert?.buttons.map(\.title) == ["Localize Again", "Reset & Start Over", "Dismiss"])
        #expect(h.ui { h.vm.runStatus.card?.text } == "Not localized")
        h.ui { h.vm.tap(alert!.buttons[0]) }
        h.captureAll()
        h.answer(200, Answers.multi(x: 30))
        // The second rejection in a row escalates to one more multi-frame run at once (SPEC §8.9).
        h.captureAll()
        h.answer(200, Answers.multi(x: 30))
        alert = h.ui { h.vm.presentedAlert }
        #expect(alert?.message == FalsePositiveText.mismatch + "\n\n" + FalsePositiveText.resetHint(count: 3))
        h.ui { h.vm.tap(alert!.buttons[1]) }
        #expect(!h.sdk.hasLocalized && h.sdk.anchorTrust == nil)
        #expect(h.ui { !h.vm.hasLocalized && h.vm.toastMessage == "World origin reset" && h.vm.presentedAlert == nil })
        #expect(h.scene.calls.last == .resetMapRoot)
    }

    /// A provisional anchor is displaced by the next disagreeing fix: the correction toast, not the
    /// success toast.
    @Test func correctionToastWithDistanceAndTrust() {
        let h = RealARHarness(ARConfig.make { $0.localizationMode = .singleFrame })
        h.appear()
        h.ui { h.vm.startLocalization() }
        h.answer(200, Answers.single(x: 1, z: 2))
        #expect(h.sdk.anchorTrust == .provisional)
        h.advance(2)
        h.ui { h.vm.startLocalization() }
        h.answer(200, Answers.single(x: 4, z: 6))
        #expect(h.ui { h.vm.toastMessage } == "Map re-anchored 5.0 m (provisional)")
        #expect(h.ui { h.vm.runStatus.card?.text } == "Localized")
    }

    /// The seeds' alert body helper.
    @Test func falsePositiveTexts() {
        #expect(falsePositiveText(for: Fixtures.rejection(.falsePositive, count: 1)) == FalsePositiveText.mismatch)
        #expect(
            falsePositiveText(for: Fixtures.rejection(.suspectedAliasing, count: 2))
                == "This place looks like another part of the map. Trying again from here will not help; move somewhere more distinctive first."
        )
        #expect(
            falsePositiveText(for: Fixtures.rejection(.reestablishing, count: 3))
                == "The result did not match your tracked position. Walk a few steps to a well-lit, distinctive area and localize again.\n\n3 responses were discarded in a row. If the map itself looks misplaced, choose Reset & Start Over; the next response becomes the new anchor."
        )
    }

    @Test func resetButton() {
        let h = RealARHarness(ARConfig.make { $0.localizationMode = .singleFrame })
        h.appear()
        h.ui { h.vm.startLocalization() }
        h.answer(200, Answers.single())
        h.ui { h.vm.resetWorldOrigin() }
        #expect(!h.sdk.hasLocalized)
        #expect(h.ui { h.vm.toastMessage } == "World origin reset")
        h.advance(2)
        #expect(h.ui { !h.vm.showToast })
    }
}
