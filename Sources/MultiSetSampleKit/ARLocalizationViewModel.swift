import Foundation
import MultiSetSDK

#if canImport(simd)
import simd
#endif

/// The AR localization screen (SPEC §16.5, seed `ARLocalizationView`) without the camera view:
/// overlays, run status card, GPS indicator, mesh bar and toggle, controls, toasts and alerts.
///
/// State is polled from the SDK every 0.1 s through the injected scheduler and updated by the
/// delegate's callbacks. All members must be used on one queue, the one the scheduler fires on and
/// the SDK delivers callbacks on (the main queue in an app).
public final class ARLocalizationViewModel: ChangeNotifying {
    /// Seconds between polls of the SDK's state.
    public static let pollInterval: Double = 0.1
    /// Seconds a finished run stays on the status card before it fades.
    public static let statusFadeDelay: Double = RunStatusModel.fadeDelay

    // MARK: State of the seed

    /// AR tracking is normal.
    public private(set) var isTrackingNormal = false
    /// A fix was accepted (since appear or the last reset).
    public private(set) var hasLocalized = false
    /// The current run's stage.
    public private(set) var stage: LocalizationStage = .idle
    /// A run the user is waiting on is in progress.
    public private(set) var isForegroundRun = false
    /// Polled: a run is in progress or a silent retry is due.
    public private(set) var isLocalizing = false
    /// Polled: a foreground run or its silent retry is due.
    public private(set) var isShowingOverlay = false
    /// Polled: a map mesh is in the scene.
    public private(set) var hasMapMesh = false
    /// Polled: a map mesh is loading.
    public private(set) var isMeshLoading = false
    /// Polled: the user's mesh flag.
    public private(set) var isMeshVisible = true
    /// Polled: height to lift the controls.
    public private(set) var watermarkClearance: Double = 0
    /// The close confirmation is showing.
    public private(set) var showCloseConfirmation = false
    /// The last stage callback was for a background run.
    public private(set) var lastRunWasBackground = false
    /// Polled: capture progress of the current run.
    public private(set) var captureProgress: CaptureProgress?

    // MARK: Presentation

    /// The toast showing, if any.
    public private(set) var toast: Toast?
    /// The run status card (the seeds' `runStatus`); its `card` is what shows.
    public let runStatus: RunStatusModel
    /// The failure alert is showing.
    public private(set) var showFailureAlert = false
    /// Its §19.2 message.
    public private(set) var failureAlertMessage = ""
    /// The false-positive alert is showing.
    public private(set) var showFalsePositiveAlert = false
    /// Its body.
    public private(set) var falsePositiveMessage = ""
    /// `End` was chosen: the host navigates back.
    public private(set) var shouldNavigateBack = false
    /// The GPS fix shown by the indicator.
    public private(set) var gpsFix: GeoFix?

    /// State changed.
    public var onChange: (() -> Void)?

    private let sdk: any MultiSetControlling
    private let delegate: MultiSetSDKDelegate
    private let localizationMode: LocalizationMode?
    private let scheduler: any SDKScheduler
    private let clock: any SDKClock
    private let locationProvider: (any LocationProvider)?
    private var pollTimer: (any ScheduledTimer)?
    private var toastTimer: (any ScheduledTimer)?
    private var isActive = false
    /// The background flag of the run whose result is expected next (nil: a result without a run).
    private var pendingRunIsBackground: Bool?
    /// The run that just ended showed the correction toast; its success toast would hide it.
    private var correctionToastShown = false

    /// A screen model.
    ///
    /// - Parameters:
    ///   - sdk: `MultiSet.shared` in the app, a fake in tests.
    ///   - delegate: the callback receiver the SDK was initialized with.
    ///   - localizationMode: the mode chosen on the landing screen (applied on appear if it differs).
    ///   - scheduler: fires the 0.1 s poll and the 2 s toast and card timers, on the UI queue.
    ///   - clock: wall time for the GPS fix's age.
    ///   - locationProvider: the GPS source whose latest fix the indicator shows.
    public init(
        sdk: any MultiSetControlling, delegate: MultiSetSDKDelegate, localizationMode: LocalizationMode? = nil,
        scheduler: any SDKScheduler, clock: any SDKClock = SystemClock(),
        locationProvider: (any LocationProvider)? = nil
    ) {
        self.sdk = sdk
        self.delegate = delegate
        self.localizationMode = localizationMode
        self.scheduler = scheduler
        self.clock = clock
        self.locationProvider = locationProvider
        runStatus = RunStatusModel(sdk: sdk, delegate: delegate, scheduler: scheduler)
        runStatus.onChange = { [weak self] in self?.notifyChange() }
    }

    private var showAlerts: Bool { sdk.config?.showAlerts == true }

    // MARK: Lifecycle

    /// Appear: callbacks, GPS (with `passGeoPose`), auto-localization, polling.
    public func onAppear() {
        guard !isActive else { return }
        isActive = true
        shouldNavigateBack = false
        installCallbacks()
        isTrackingNormal = delegate.trackingState == .tracking
        hasLocalized = sdk.hasLocalized
        if let mode = localizationMode, let c = sdk.config, c.localizationMode != mode { sdk.setLocalizationMode(mode) }
        if sdk.config?.passGeoPose == true { sdk.startGpsUpdates() }
        sdk.startAutoLocalizationIfNeeded()
        poll()
        schedulePoll()
        notifyChange()
    }

    /// Disappear: `stopLocalization()`, `stopGpsUpdates()`, timers off.
    public func onDisappear() {
        guard isActive else { return }
        isActive = false
        cleanup()
        pollTimer?.cancel()
        pollTimer = nil
        notifyChange()
    }

    // MARK: Controls

    /// `Localize` is enabled: nothing running and tracking normal.
    public var isLocalizeEnabled: Bool { !isLocalizing && isTrackingNormal }

    /// `Localize` (and the alerts' `Localize Again`): only while enabled.
    public func startLocalization() {
        guard isLocalizeEnabled else { return }
        sdk.localize()
    }

    /// The reset button and `Reset & Start Over`: reset the session, toast, re-arm auto-localization.
    public func resetWorldOrigin() {
        sdk.resetSession()
        hasLocalized = false
        runStatus.clear()
        showToastMessage(ToastText.worldOriginReset, success: true)
        sdk.startAutoLocalizationIfNeeded()
        notifyChange()
    }

    /// The scene phase changed (SwiftUI's `scenePhase`): only going to the background and coming back
    /// reach the SDK; `.inactive` (Control Center, a permission prompt) is not a background (D5).
    public func scenePhaseChanged(_ phase: AppScenePhase) {
        if let active = phase.appActive { sdk.setAppActive(active) }
    }

    /// `Hide Mesh` / `Show Mesh`.
    public func toggleMeshVisibility() {
        isMeshVisible.toggle()
        sdk.setMeshVisible(isMeshVisible)
        notifyChange()
    }

    /// The close button: asks for confirmation.
    public func closeTapped() {
        showCloseConfirmation = true
        notifyChange()
    }

    /// The alert on screen, if any (close confirmation first, then the false-positive and failure alerts).
    public var presentedAlert: SampleAlert? {
        if showCloseConfirmation { return .closeConfirmation }
        if showFalsePositiveAlert { return .falsePositive(message: falsePositiveMessage) }
        if showFailureAlert { return .failure(message: failureAlertMessage) }
        return nil
    }

    /// A button of ``presentedAlert`` was tapped.
    public func tap(_ button: SampleAlert.Button) {
        guard let alert = presentedAlert else { return }
        switch alert.kind {
        case .closeConfirmation: showCloseConfirmation = false
        case .falsePositive: showFalsePositiveAlert = false
        case .failure: showFailureAlert = false
        }
        switch button.action {
        case .localizeAgain: startLocalization()
        case .resetAndStartOver: resetWorldOrigin()
        case .dismiss, .cancel: break
        case .end:
            onDisappear()
            shouldNavigateBack = true
        }
        notifyChange()
    }

    // MARK: Derived presentation

    /// Shown while a foreground run captures.
    public var frameCaptureOverlay: FrameCaptureOverlay? {
        guard isForegroundRun && stage == .capturing else { return nil }
        let total = max(1, captureProgress?.total ?? expectedFrames)
        let captured = captureProgress?.captured ?? 0
        return FrameCaptureOverlay(index: min(captured + 1, total), total: total)
    }

    /// Shown while the user waits on the server (or on a silent retry).
    public var serverWaitOverlay: ServerWaitOverlay? {
        guard isShowingOverlay else { return nil }
        switch stage {
        case .uploading: return ServerWaitOverlay(text: ServerWaitOverlay.uploading)
        case .awaitingResponse: return ServerWaitOverlay(text: ServerWaitOverlay.matching)
        case .idle: return ServerWaitOverlay(text: ServerWaitOverlay.matching)
        case .capturing: return nil
        }
    }

    /// `GPS ±<n> m` with a valid fix at most 30 s old, else `GPS searching…`; nil without `passGeoPose`.
    public var gpsIndicatorText: String? {
        guard sdk.config?.passGeoPose == true else { return nil }
        guard let fix = gpsFix, fix.coordinates.isValid(), fix.accuracy.isFinite, fix.accuracy >= 0,
            clock.wallDate().timeIntervalSince(fix.timestamp) <= 30
        else { return "GPS searching…" }
        return "GPS ±\(Int(fix.accuracy.rounded())) m"
    }

    /// `Loading map mesh…` while a mesh loads.
    public var meshLoadingText: String? { isMeshLoading ? "Loading map mesh…" : nil }

    /// `Hide Mesh` / `Show Mesh` once a mesh is in the scene.
    public var meshToggleTitle: String? {
        guard hasMapMesh else { return nil }
        return isMeshVisible ? "Hide Mesh" : "Show Mesh"
    }

    /// A toast is showing.
    public var showToast: Bool { toast != nil }

    /// The toast's text ("" without one).
    public var toastMessage: String { toast?.message ?? "" }

    private var expectedFrames: Int {
        guard let c = sdk.config else { return 1 }
        return c.localizationMode == .multiFrame ? c.numberOfFrames : 1
    }

    // MARK: Callbacks

    private func installCallbacks() {
        delegate.onLocalizationStageChanged = { [weak self] stage, isBackground in
            self?.stageChanged(stage, isBackground: isBackground)
        }
        delegate.onLocalizationSuccess = { [weak self] result in self?.succeeded(result) }
        delegate.onLocalizationFailure = { [weak self] error in self?.failed(error) }
        delegate.onLocalizationFalsePositive = { [weak self] info in self?.discarded(info) }
        delegate.onLocalizationCorrected = { [weak self] from, to, trust in
            self?.corrected(from: from, to: to, trust: trust)
        }
        delegate.onTrackingChanged = { [weak self] state in
            guard let self else { return }
            self.isTrackingNormal = state == .tracking
            self.notifyChange()
        }
    }

    // The seeds' callbacks (ARLocalizationView, "Callbacks"), plus SPEC §16.5: background runs show only
    // on the status card, and a correction's toast is not replaced by the success toast right after it.

    private func stageChanged(_ newStage: LocalizationStage, isBackground: Bool) {
        if stage == .idle && newStage == .capturing { correctionToastShown = false }
        stage = newStage
        isForegroundRun = newStage != .idle && !isBackground
        isShowingOverlay = sdk.isShowingOverlay
        // Also read now, not at the next poll: an alert right after the run must find Localize enabled.
        isLocalizing = sdk.isLocalizing
        lastRunWasBackground = isBackground
        pendingRunIsBackground = isBackground
        captureProgress = sdk.captureProgress
        runStatus.receive(RunStatusState(newStage))
        notifyChange()
    }

    /// The run a result belongs to; consumes it.
    private func resultIsBackground() -> Bool {
        defer { pendingRunIsBackground = nil }
        return pendingRunIsBackground ?? false
    }

    private func succeeded(_ result: LocalizationResult) {
        let background = resultIsBackground()
        hasLocalized = true
        runStatus.receive(.succeeded)
        if showAlerts && !background && !correctionToastShown {
            showToastMessage(ToastText.success, success: true)
        }
        correctionToastShown = false
        notifyChange()
    }

    private func failed(_ error: String) {
        let background = resultIsBackground()
        runStatus.receive(.failed)
        if showAlerts && !background {
            failureAlertMessage = userFriendlyMessage(for: error)
            showFailureAlert = true
        }
        notifyChange()
    }

    private func discarded(_ info: FalsePositiveInfo) {
        let background = resultIsBackground()
        runStatus.receive(.failed)
        if showAlerts && !background {
            showToastMessage(ToastText.responseReceived, success: true)
            falsePositiveMessage = falsePositiveText(for: info)
            showFalsePositiveAlert = true
        }
        notifyChange()
    }

    private func corrected(from: Pose, to: Pose, trust: AnchorTrust) {
        guard showAlerts else { return }
        showToastMessage(
            ToastText.reanchored(meters: simd_distance(from.position, to.position), trust: trust), success: true)
        correctionToastShown = true
        notifyChange()
    }

    // MARK: Timers

    /// Shows a toast for 2 s when `showAlerts` is on (a new toast replaces the old one).
    private func showToastMessage(_ message: String, success: Bool) {
        guard showAlerts else { return }
        toastTimer?.cancel()
        toast = Toast(message: message, isSuccess: success)
        let box = WeakBox(self)
        toastTimer = scheduler.schedule(after: Toast.duration) {
            guard let model = box.value else { return }
            model.toast = nil
            model.toastTimer = nil
            model.notifyChange()
        }
    }

    private func schedulePoll() {
        let box = WeakBox(self)
        pollTimer = scheduler.schedule(after: Self.pollInterval) {
            guard let model = box.value, model.isActive else { return }
            if model.poll() { model.notifyChange() }
            model.schedulePoll()
        }
    }

    /// Reads the SDK's state; returns whether anything changed.
    @discardableResult
    private func poll() -> Bool {
        var changed = false
        func update<T: Equatable>(_ value: inout T, _ new: T) {
            if value != new {
                value = new
                changed = true
            }
        }
        update(&isLocalizing, sdk.isLocalizing)
        update(&isShowingOverlay, sdk.isShowingOverlay)
        update(&hasMapMesh, sdk.hasMapMesh)
        update(&isMeshLoading, sdk.isMapMeshLoading)
        update(&isMeshVisible, sdk.isMapMeshVisible)
        update(&watermarkClearance, Double(sdk.watermarkClearance))
        update(&captureProgress, sdk.captureProgress)
        runStatus.refreshProgress()
        update(&gpsFix, locationProvider?.latest)
        return changed
    }

    private func cleanup() {
        sdk.stopLocalization()
        sdk.stopGpsUpdates()
    }
}
