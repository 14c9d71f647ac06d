import MultiSetSDK

/// The sample's `MultiSetCallback` (SPEC §16.2): keeps the authentication state the landing screen
/// shows and forwards localization events to closures named as in the seeds.
///
/// Callbacks are expected on the UI queue (the SDK's default `callbackQueue` on Apple platforms is the
/// main queue); the delegate does not hop queues itself.
public final class MultiSetSDKDelegate: MultiSetCallback, ChangeNotifying {
    /// Status line texts.
    public enum Status {
        /// After `onSDKReady()`.
        public static let authenticating = "SDK ready, authenticating..."
        /// After `onAuthenticationSuccess()`.
        public static let authenticated = "Authenticated"
        /// After `onAuthenticationFailure(error:)`.
        public static let failed = "Authentication failed"
    }

    /// `onSDKReady()` was received.
    public private(set) var isSDKReady = false
    /// The last authentication succeeded.
    public private(set) var isAuthenticated = false
    /// Authentication is in flight.
    public private(set) var isAuthenticating = false
    /// The landing screen's status line ("" until the SDK reports).
    public private(set) var statusText = ""
    /// The last authentication error.
    public private(set) var lastError: String?
    /// The last mapped tracking state, so a screen opened later starts from it.
    public private(set) var trackingState: TrackingState?
    /// The last stage callback was for a background (or relocalization) run; set before
    /// `onLocalizationStageChanged` runs, so a run status card can read it there.
    public private(set) var lastStageWasBackground = false

    /// State changed.
    public var onChange: (() -> Void)?
    /// `onLocalizationSuccess(result:)`.
    public var onLocalizationSuccess: ((LocalizationResult) -> Void)?
    /// `onLocalizationFailure(error:)`.
    public var onLocalizationFailure: ((String) -> Void)?
    /// `onLocalizationFalsePositive(info:)`.
    public var onLocalizationFalsePositive: ((FalsePositiveInfo) -> Void)?
    /// `onLocalizationCorrected(from:to:trust:)`.
    public var onLocalizationCorrected: ((Pose, Pose, AnchorTrust) -> Void)?
    /// `onLocalizationStageChanged(stage:isBackground:)`.
    public var onLocalizationStageChanged: ((LocalizationStage, Bool) -> Void)?
    /// `onTrackingStateChanged(state:)`.
    public var onTrackingChanged: ((TrackingState) -> Void)?
    /// `onMeshLoaded(mapCode:)` / `onMeshLoadError(error:)`.
    public var onMeshLoaded: ((String) -> Void)?, onMeshLoadError: ((String) -> Void)?
    /// Object tracking events.
    public var onObjectTrackingSuccess: ((String, Double) -> Void)?, onObjectTrackingFailure: ((String) -> Void)?
    /// `onObjectMeshLoaded(objectCode:)`.
    public var onObjectMeshLoaded: ((String) -> Void)?

    /// A delegate with nothing received yet.
    public init() {}

    /// Marks a status the host sets itself (e.g. `Credentials not configured`).
    public func setStatus(_ text: String) {
        statusText = text
        notifyChange()
    }

    public func onSDKReady() {
        isSDKReady = true
        isAuthenticating = true
        statusText = Status.authenticating
        notifyChange()
    }

    public func onAuthenticationSuccess() {
        isAuthenticated = true
        isAuthenticating = false
        statusText = Status.authenticated
        lastError = nil
        notifyChange()
    }

    public func onAuthenticationFailure(error: String) {
        isAuthenticated = false
        isAuthenticating = false
        statusText = Status.failed
        lastError = error
        notifyChange()
    }

    public func onLocalizationSuccess(result: LocalizationResult) { onLocalizationSuccess?(result) }
    public func onLocalizationFailure(error: String) { onLocalizationFailure?(error) }
    public func onLocalizationFalsePositive(info: FalsePositiveInfo) { onLocalizationFalsePositive?(info) }
    public func onLocalizationCorrected(from: Pose, to: Pose, trust: AnchorTrust) {
        onLocalizationCorrected?(from, to, trust)
    }
    public func onLocalizationStageChanged(stage: LocalizationStage, isBackground: Bool) {
        lastStageWasBackground = isBackground
        onLocalizationStageChanged?(stage, isBackground)
    }

    public func onTrackingStateChanged(state: TrackingState) {
        trackingState = state
        onTrackingChanged?(state)
        notifyChange()
    }

    public func onMeshLoaded(mapCode: String) { onMeshLoaded?(mapCode) }
    public func onMeshLoadError(error: String) { onMeshLoadError?(error) }
    public func onObjectTrackingSuccess(objectCode: String, confidence: Double) {
        onObjectTrackingSuccess?(objectCode, confidence)
    }
    public func onObjectTrackingFailure(error: String) { onObjectTrackingFailure?(error) }
    public func onObjectMeshLoaded(objectCode: String) { onObjectMeshLoaded?(objectCode) }
}
