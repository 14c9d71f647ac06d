import Foundation
import MultiSetSDK
import MultiSetSampleKit
import Testing

// The seeds' view-code fragments, as written there, against the sample kit (plain imports, no
// @testable): the ARLocalizationView page's callbacks, polling block, actions and configuration, the
// MyARView callback and the LandingView initialization. Only what touches SwiftUI is left out (the
// view bodies and `Timer.publish`); `@State` here is a stand-in with SwiftUI's nonmutating setter.

/// SwiftUI's `@State` as far as the fragments need it: a value whose setter does not mutate the view.
@propertyWrapper struct State<Value> {
    private final class Box {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    private let box: Box
    init(wrappedValue: Value) { box = Box(wrappedValue) }
    var wrappedValue: Value {
        get { box.value }
        nonmutating set { box.value = newValue }
    }
}

/// The ARLocalizationView state and code of the seed (its "State Management" and "Callbacks" sections).
struct SeedARLocalizationView {
    let sdkDelegate: MultiSetSDKDelegate
    let runStatus: RunStatusModel
    @State var isTrackingNormal = false
    @State var hasLocalized = false
    @State var stage: LocalizationStage = .idle
    @State var isForegroundRun = false
    @State var isLocalizing = false
    @State var isShowingOverlay = false
    @State var hasMapMesh = false
    @State var isMeshLoading = false
    @State var watermarkClearance: CGFloat = 0
    @State var showCloseConfirmation = false
    @State var showToast = false
    @State var toastText = ""
    @State var failureAlertMessage = ""
    @State var showFailureAlert = false
    @State var falsePositiveMessage = ""
    @State var showFalsePositiveAlert = false

    func showToastMessage(_ message: String, success: Bool) {
        toastText = message
        showToast = true
    }

    func startAutoLocalizationIfNeeded() { MultiSet.shared.startAutoLocalizationIfNeeded() }

    // "State Polling": the body of `.onReceive(stateTimer)`.
    func poll() {
        isLocalizing = MultiSet.shared.isLocalizing
        isShowingOverlay = MultiSet.shared.isShowingOverlay
        hasMapMesh = MultiSet.shared.hasMapMesh
        isMeshLoading = MultiSet.shared.isMapMeshLoading
        watermarkClearance = MultiSet.shared.watermarkClearance
    }

    // "Callbacks".
    func setupCallbacks() {
        sdkDelegate.onLocalizationStageChanged = { newStage, isBackground in
            stage = newStage
            isForegroundRun = newStage != .idle && !isBackground
            isShowingOverlay = MultiSet.shared.isShowingOverlay
            runStatus.receive(RunStatusState(newStage))
        }

        sdkDelegate.onLocalizationSuccess = { result in
            hasLocalized = true
            runStatus.receive(.succeeded)
            if MultiSet.shared.config?.showAlerts == true {
                showToastMessage("Localization successful", success: true)
            }
        }

        sdkDelegate.onLocalizationFailure = { error in
            runStatus.receive(.failed)
            if MultiSet.shared.config?.showAlerts == true {
                failureAlertMessage = userFriendlyMessage(for: error)
                showFailureAlert = true
            }
        }

        sdkDelegate.onLocalizationFalsePositive = { info in
            runStatus.receive(.failed)
            guard MultiSet.shared.config?.showAlerts == true else { return }
            showToastMessage("Localization response received", success: true)
            falsePositiveMessage = falsePositiveText(for: info)
            showFalsePositiveAlert = true
        }

        sdkDelegate.onLocalizationCorrected = { from, to, trust in
            guard MultiSet.shared.config?.showAlerts == true else { return }
            showToastMessage(
                String(
                    format: "Map re-anchored %.1f m (%@)", simd_distance(from.position, to.position),
                    String(describing: trust)),
                success: true
            )
        }

        sdkDelegate.onTrackingChanged = { state in
            isTrackingNormal = (state == .tracking)
        }
    }

    // "Actions".
    func startLocalization() {
        MultiSet.shared.localize()
    }

    func resetWorldOrigin() {
        MultiSet.shared.resetSession()
        hasLocalized = false
        showToastMessage("World origin reset", success: true)

        // Restart auto-localization if enabled
        startAutoLocalizationIfNeeded()
    }

    func cleanup() {
        MultiSet.shared.stopLocalization()
        MultiSet.shared.stopGpsUpdates()
    }
}

/// MyARView's callback set-up (its body is SwiftUI: it compiles with the app, SeedExamples/MyARView.swift).
struct SeedMyARView {
    let sdkDelegate: MultiSetSDKDelegate
    let localizationMode: LocalizationMode
    @State var printed = ""

    func setupCallbacks() {
        sdkDelegate.onLocalizationSuccess = { result in
            printed = "Localized at: \(result.position)"
        }
    }
}

@Suite struct SeedFragmentsTests {
    /// The fragments compile; run against a delegate, they drive the card, toasts and alerts as the
    /// seed describes.
    @Test func arLocalizationFragmentsDriveTheScreen() {
        let delegate = MultiSetSDKDelegate()
        let clock = ManualScheduler()
        let view = SeedARLocalizationView(
            sdkDelegate: delegate, runStatus: RunStatusModel(sdk: MultiSet.shared, delegate: delegate, scheduler: clock)
        )
        view.setupCallbacks()
        delegate.onLocalizationStageChanged(stage: .capturing, isBackground: true)
        #expect(view.stage == .capturing && !view.isForegroundRun)
        #expect(view.runStatus.card?.text == "Background · Capturing 1/1")
        delegate.onLocalizationStageChanged(stage: .awaitingResponse, isBackground: true)
        #expect(view.runStatus.card?.text == "Background · Matching…")
        delegate.onLocalizationStageChanged(stage: .idle, isBackground: true)
        delegate.onLocalizationSuccess(result: Fixtures.result())
        #expect(view.hasLocalized && view.runStatus.card?.text == "Background · Localized")
        clock.advance(by: 2)
        #expect(view.runStatus.card == nil)
        delegate.onLocalizationStageChanged(stage: .capturing, isBackground: false)
        #expect(view.isForegroundRun && view.runStatus.card?.text == "Capturing 1/1")
        delegate.onLocalizationFailure(error: "Pose not found")
        #expect(view.runStatus.card?.text == "Not localized")
        delegate.onTrackingStateChanged(state: .tracking)
        #expect(view.isTrackingNormal)
        // MultiSet.shared is not initialized here: no config, so no alerts (showAlerts is read from it).
        #expect(!view.showFailureAlert && !view.showToast)
        view.poll()
        #expect(!view.isLocalizing && view.watermarkClearance == 0)
        view.startLocalization()
        view.resetWorldOrigin()
        #expect(view.toastText == "World origin reset")
        view.cleanup()
    }

    @Test func myARViewAndLandingFragments() {
        let sdkDelegate = MultiSetSDKDelegate()
        let view = SeedMyARView(sdkDelegate: sdkDelegate, localizationMode: .multiFrame)
        view.setupCallbacks()
        sdkDelegate.onLocalizationSuccess(result: Fixtures.result(at: 2))
        #expect(view.printed.hasPrefix("Localized at: "))

        // LandingView "SDK Initialization", on an instance without credentials (so nothing leaves).
        let selectedMode: LocalizationMode = .singleFrame
        var config = SDKConfig.buildConfig(environment: [:], store: nil)
        config.localizationMode = selectedMode  // Override with UI selection
        let sdk = MultiSet(
            environment: MultiSetEnvironment(logger: .silent, callbackQueue: DispatchQueue(label: "seed")))
        sdk.initialize(config: config, callback: sdkDelegate)
        #expect(!sdk.isInitialized)
        for mode in LocalizationMode.allCases { #expect(!mode.rawValue.isEmpty && mode.id == mode.rawValue) }
    }

    /// The seed's configuration block, field by field.
    @Test func configurationFragment() {
        var config = MultiSetConfig()
        config.localizationMode = .multiFrame  // or .singleFrame
        config.queryMode = .vps1  // .vps1 or .vps2, both modes
        config.autoLocalize = true
        config.backgroundLocalization = true
        config.bgLocalizationDurationSeconds = 30.0  // 10 - 180
        config.relocalization = true
        config.numberOfFrames = 4  // For multi-frame
        config.frameCaptureIntervalMs = 500  // For multi-frame
        config.confidenceCheck = true
        config.confidenceThreshold = 0.3
        config.firstLocalizationUntilSuccess = true  // up to 5 silent retries
        config.showAlerts = true
        config.meshVisualization = true
        config.passGeoPose = false
        config.geoCoordinatesInResponse = false
        config.imageQuality = 90
        #expect(config.validated() == config)
    }
}
