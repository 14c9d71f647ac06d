import Foundation
import MultiSetSDK
import Testing

// Written from the seeds' code samples (ARLocalizationView and LandingView): the public API must
// compile against them unchanged (plain `import MultiSetSDK`, no @testable).

/// The seed's delegate shape: closures set by the views, forwarded from `MultiSetCallback`.
private final class SeedDelegate: MultiSetCallback, @unchecked Sendable {
    var isSDKReady = false
    var isAuthenticated = false
    var isAuthenticating = false
    var statusText = ""
    var lastError: String?
    var onLocalizationSuccess: ((LocalizationResult) -> Void)?
    var onLocalizationFailure: ((String) -> Void)?
    var onLocalizationFalsePositive: ((FalsePositiveInfo) -> Void)?
    var onLocalizationCorrected: ((Pose, Pose, AnchorTrust) -> Void)?
    var onLocalizationStageChanged: ((LocalizationStage, Bool) -> Void)?
    var onTrackingChanged: ((TrackingState) -> Void)?

    func onSDKReady() {
        DispatchQueue.main.async {
            self.isSDKReady = true
            self.statusText = "SDK ready, authenticating..."
        }
    }

    func onAuthenticationSuccess() {
        isAuthenticated = true
        isAuthenticating = false
        statusText = "Authenticated"
    }

    func onAuthenticationFailure(error: String) {
        isAuthenticated = false
        isAuthenticating = false
        statusText = "Authentication failed"
        lastError = error
    }

    func onLocalizationSuccess(result: LocalizationResult) { onLocalizationSuccess?(result) }
    func onLocalizationFailure(error: String) { onLocalizationFailure?(error) }
    func onLocalizationFalsePositive(info: FalsePositiveInfo) { onLocalizationFalsePositive?(info) }
    func onLocalizationCorrected(from: Pose, to: Pose, trust: AnchorTrust) { onLocalizationCorrected?(from, to, trust) }
    func onLocalizationStageChanged(stage: LocalizationStage, isBackground: Bool) {
        onLocalizationStageChanged?(stage, isBackground)
    }
    func onTrackingStateChanged(state: TrackingState) { onTrackingChanged?(state) }
    func onObjectTrackingSuccess(objectCode: String, confidence: Double) {}
    func onObjectTrackingFailure(error: String) {}
}

private enum SDKConfig {
    static func buildConfig() -> MultiSetConfig { MultiSetConfig() }
}

/// Compiles the seeds' snippets; runs them against an SDK that never authenticates.
@Test func seedSnippetsCompile() {
    let sdkDelegate = SeedDelegate()
    let selectedMode: LocalizationMode = .multiFrame
    var stage = LocalizationStage.idle
    var isForegroundRun = false
    var isShowingOverlay = false
    var hasLocalized = false
    var isTrackingNormal = false
    var messages: [String] = []

    // LandingView
    var config = SDKConfig.buildConfig()
    config.localizationMode = selectedMode
    for mode in LocalizationMode.allCases { messages.append(mode.rawValue + mode.id) }

    // ARLocalizationView "Configuration"
    config.localizationMode = .multiFrame
    config.queryMode = .vps1
    config.autoLocalize = true
    config.backgroundLocalization = true
    config.bgLocalizationDurationSeconds = 30.0
    config.relocalization = true
    config.numberOfFrames = 4
    config.frameCaptureIntervalMs = 500
    config.confidenceCheck = true
    config.confidenceThreshold = 0.3
    config.firstLocalizationUntilSuccess = true
    config.showAlerts = true
    config.meshVisualization = true
    config.passGeoPose = false
    config.geoCoordinatesInResponse = false
    config.imageQuality = 90

    sdkDelegate.onLocalizationStageChanged = { newStage, isBackground in
        stage = newStage
        isForegroundRun = newStage != .idle && !isBackground
        isShowingOverlay = MultiSet.shared.isShowingOverlay
    }
    sdkDelegate.onLocalizationSuccess = { result in
        hasLocalized = true
        if MultiSet.shared.config?.showAlerts == true { messages.append("Localization successful \(result.position)") }
    }
    sdkDelegate.onLocalizationFailure = { error in
        if MultiSet.shared.config?.showAlerts == true { messages.append(error) }
    }
    sdkDelegate.onLocalizationFalsePositive = { info in
        guard MultiSet.shared.config?.showAlerts == true else { return }
        messages.append(info.rejection == .suspectedAliasing ? info.summary : info.reason)
    }
    sdkDelegate.onLocalizationCorrected = { from, to, trust in
        guard MultiSet.shared.config?.showAlerts == true else { return }
        messages.append(
            String(
                format: "Map re-anchored %.1f m (%@)", simd_distance(from.position, to.position),
                String(describing: trust)))
    }
    sdkDelegate.onTrackingChanged = { state in
        isTrackingNormal = (state == .tracking)
    }

    // State polling
    let sdk = MultiSet(environment: MultiSetEnvironment(logger: .silent))
    _ = sdk.isLocalizing
    _ = sdk.isShowingOverlay
    _ = sdk.hasMapMesh
    _ = sdk.isMapMeshLoading
    let clearance: CGFloat = sdk.watermarkClearance
    _ = sdk.isInitialized && sdk.isAuthenticated
    _ = sdk.config

    // Actions (on an instance that has no credentials: every call is harmless).
    config.clientId = ""
    sdk.initialize(config: config, callback: sdkDelegate)
    sdk.setLocalizationMode(.singleFrame)
    sdk.setQueryMode(.vps2)
    sdk.updateConfig(config)
    sdk.localize()
    sdk.stopLocalization()
    sdk.resetSession()
    sdk.setMeshVisible(true)
    sdk.resetPoseConsistencyReference()
    sdk.startGpsUpdates()
    sdk.stopGpsUpdates()
    sdk.startAutoLocalizationIfNeeded()
    sdk.release()
    _ = MultiSet.version
    #expect(clearance == 0)
    #expect(!sdk.isInitialized)
    #expect(stage == .idle && !isForegroundRun && !isShowingOverlay && !hasLocalized && !isTrackingNormal)
    #expect(messages.count == 2)
}
