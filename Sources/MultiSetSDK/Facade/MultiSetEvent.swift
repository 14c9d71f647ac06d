/// Every callback of ``MultiSetCallback`` as a value, for the `AsyncStream` surface
/// (``MultiSet/events``).
public enum MultiSetEvent: Sendable, Equatable {
    /// `onSDKReady()`.
    case sdkReady
    /// `onAuthenticationSuccess()`.
    case authenticationSuccess
    /// `onAuthenticationFailure(error:)`.
    case authenticationFailure(String)
    /// `onLocalizationSuccess(result:)`.
    case localizationSuccess(LocalizationResult)
    /// `onLocalizationFailure(error:)` with the typed error (its `message` is the callback's string).
    case localizationFailure(MultiSetError)
    /// `onLocalizationFalsePositive(info:)`.
    case localizationFalsePositive(FalsePositiveInfo)
    /// `onLocalizationCorrected(from:to:trust:)`.
    case localizationCorrected(from: Pose, to: Pose, trust: AnchorTrust)
    /// `onAnchorTrustChanged(trust:)`.
    case anchorTrustChanged(AnchorTrust)
    /// `onLocalizationStageChanged(stage:isBackground:)`.
    case stageChanged(LocalizationStage, isBackground: Bool)
    /// `onTrackingStateChanged(state:)`.
    case trackingStateChanged(TrackingState)
    /// `onMeshLoaded(mapCode:)`.
    case meshLoaded(mapCode: String)
    /// `onMeshLoadError(error:)`.
    case meshLoadError(String)
    /// `onObjectTrackingSuccess(objectCode:confidence:)`.
    case objectTrackingSuccess(objectCode: String, confidence: Double)
    /// `onObjectTrackingFailure(error:)`.
    case objectTrackingFailure(String)
    /// `onObjectMeshLoaded(objectCode:)`.
    case objectMeshLoaded(objectCode: String)

    init(_ e: CallbackEvent) {
        switch e {
        case .sdkReady: self = .sdkReady
        case .authenticationSuccess: self = .authenticationSuccess
        case .authenticationFailure(let m): self = .authenticationFailure(m)
        case .localizationSuccess(let r): self = .localizationSuccess(r)
        case .localizationFailure(let m): self = .localizationFailure(m)
        case .falsePositive(let i): self = .localizationFalsePositive(i)
        case .corrected(let f, let t, let trust): self = .localizationCorrected(from: f, to: t, trust: trust)
        case .anchorTrustChanged(let t): self = .anchorTrustChanged(t)
        case .stageChanged(let s, let bg): self = .stageChanged(s, isBackground: bg)
        case .trackingStateChanged(let s): self = .trackingStateChanged(s)
        case .meshLoaded(let c): self = .meshLoaded(mapCode: c)
        case .meshLoadError(let m): self = .meshLoadError(m)
        case .objectTrackingSuccess(let c, let conf): self = .objectTrackingSuccess(objectCode: c, confidence: conf)
        case .objectTrackingFailure(let m): self = .objectTrackingFailure(m)
        case .objectMeshLoaded(let c): self = .objectMeshLoaded(objectCode: c)
        }
    }

    /// Calls the matching member of a callback.
    func deliver(to callback: any MultiSetCallback) {
        switch self {
        case .sdkReady: callback.onSDKReady()
        case .authenticationSuccess: callback.onAuthenticationSuccess()
        case .authenticationFailure(let m): callback.onAuthenticationFailure(error: m)
        case .localizationSuccess(let r): callback.onLocalizationSuccess(result: r)
        case .localizationFailure(let e):
            callback.onLocalizationFailure(error: e.message)
            callback.onLocalizationError(e)
        case .localizationFalsePositive(let i): callback.onLocalizationFalsePositive(info: i)
        case .localizationCorrected(let f, let t, let trust):
            callback.onLocalizationCorrected(from: f, to: t, trust: trust)
        case .anchorTrustChanged(let t): callback.onAnchorTrustChanged(trust: t)
        case .stageChanged(let s, let bg): callback.onLocalizationStageChanged(stage: s, isBackground: bg)
        case .trackingStateChanged(let s): callback.onTrackingStateChanged(state: s)
        case .meshLoaded(let c): callback.onMeshLoaded(mapCode: c)
        case .meshLoadError(let m): callback.onMeshLoadError(error: m)
        case .objectTrackingSuccess(let c, let conf): callback.onObjectTrackingSuccess(objectCode: c, confidence: conf)
        case .objectTrackingFailure(let m): callback.onObjectTrackingFailure(error: m)
        case .objectMeshLoaded(let c): callback.onObjectMeshLoaded(objectCode: c)
        }
    }
}

/// Thrown by ``MultiSet/localizeAndWait()`` when the gate discards the fix.
public struct LocalizationRejected: Error, Sendable, Equatable, CustomStringConvertible {
    /// The gate's record of the rejection.
    public var info: FalsePositiveInfo

    /// The rejection's summary.
    public var description: String { info.summary }
}
