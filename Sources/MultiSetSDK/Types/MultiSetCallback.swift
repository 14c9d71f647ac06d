/// The SDK's event receiver (SPEC §5.3). Calls arrive in event order on the environment's
/// `callbackQueue`: the main queue, so the main actor, unless an environment names another queue
/// (`MultiSet.shared` uses the main queue on every platform).
///
/// Required members are the seeds' core callbacks; the optional ones have empty default
/// implementations in a protocol extension, so a delegate implements only what it needs.
public protocol MultiSetCallback: AnyObject {
    /// Inside a successful `initialize`, before authentication starts.
    func onSDKReady()
    /// A token was obtained; localization can start.
    func onAuthenticationSuccess()
    /// Token or configuration failure, with the SPEC §19.1 message.
    func onAuthenticationFailure(error: String)
    /// A fix was accepted; the scene is already updated.
    func onLocalizationSuccess(result: LocalizationResult)
    /// A run failed and is reported (SPEC §8.6), with the SPEC §19.1 message.
    func onLocalizationFailure(error: String)
    /// The same failure, typed (stable ``MultiSetError/Code``, kind, HTTP status); right after
    /// `onLocalizationFailure(error:)`.
    func onLocalizationError(_ error: MultiSetError)
    /// The mapped AR tracking state changed.
    func onTrackingStateChanged(state: TrackingState)
    /// The gate discarded a fix (instead of success or failure); only with `poseConsistencyCheck`.
    func onLocalizationFalsePositive(info: FalsePositiveInfo)
    /// A challenger displaced the anchor; fires before the success carrying the new pose.
    func onLocalizationCorrected(from: Pose, to: Pose, trust: AnchorTrust)
    /// The anchor's trust changed (bootstrap, promotion, displacement).
    func onAnchorTrustChanged(trust: AnchorTrust)
    /// Every stage change of every run; `isBackground` for background and relocalization runs.
    func onLocalizationStageChanged(stage: LocalizationStage, isBackground: Bool)
    /// A map mesh was added to the scene.
    func onMeshLoaded(mapCode: String)
    /// A map mesh failed to load: `Mesh load failed: <reason>`.
    func onMeshLoadError(error: String)
    /// An object was found.
    func onObjectTrackingSuccess(objectCode: String, confidence: Double)
    /// Object tracking failed and is reported.
    func onObjectTrackingFailure(error: String)
    /// An object's mesh was added to the scene.
    func onObjectMeshLoaded(objectCode: String)
}

extension MultiSetCallback {
    /// Default: ignored.
    public func onLocalizationError(_ error: MultiSetError) {}
    /// Default: ignored.
    public func onLocalizationFalsePositive(info: FalsePositiveInfo) {}
    /// Default: ignored.
    public func onLocalizationCorrected(from: Pose, to: Pose, trust: AnchorTrust) {}
    /// Default: ignored.
    public func onAnchorTrustChanged(trust: AnchorTrust) {}
    /// Default: ignored.
    public func onLocalizationStageChanged(stage: LocalizationStage, isBackground: Bool) {}
    /// Default: ignored.
    public func onMeshLoaded(mapCode: String) {}
    /// Default: ignored.
    public func onMeshLoadError(error: String) {}
    /// Default: ignored.
    public func onObjectTrackingSuccess(objectCode: String, confidence: Double) {}
    /// Default: ignored.
    public func onObjectTrackingFailure(error: String) {}
    /// Default: ignored.
    public func onObjectMeshLoaded(objectCode: String) {}
}
