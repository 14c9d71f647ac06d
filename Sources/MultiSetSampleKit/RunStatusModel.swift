import MultiSetSDK

/// What the run status card is told (the seeds' `runStatus.receive(RunStatusState(newStage))`,
/// `runStatus.receive(.succeeded)` and `runStatus.receive(.failed)`).
public enum RunStatusState: Equatable, Sendable {
    /// Frames are being captured.
    case capturing
    /// The request is being sent.
    case uploading
    /// The server is matching.
    case awaitingResponse
    /// The run ended; without a result after it, it ended unlocalized.
    case idle
    /// The fix was accepted.
    case succeeded
    /// The run failed or its fix was discarded.
    case failed

    /// The state of a run stage.
    public init(_ stage: LocalizationStage) {
        switch stage {
        case .capturing: self = .capturing
        case .uploading: self = .uploading
        case .awaitingResponse: self = .awaitingResponse
        case .idle: self = .idle
        }
    }
}

/// The run status card's model (seed `RunStatusCard`, SPEC §16.5): it follows every run, background
/// ones included, and fades 2 s after a run ends.
///
/// Whether a run is a background one comes from the delegate's last stage callback, so the seeds'
/// `runStatus.receive(RunStatusState(newStage))` needs no flag. Confined to the UI queue, like the
/// other sample models.
public final class RunStatusModel: ChangeNotifying {
    /// Seconds a finished run stays before it fades.
    public static let fadeDelay: Double = 2

    /// The card showing, if any.
    public private(set) var card: RunStatusCard?
    /// State changed.
    public var onChange: (() -> Void)?

    private let sdk: any MultiSetControlling
    private let delegate: MultiSetSDKDelegate
    private let scheduler: any SDKScheduler
    private var fadeTimer: (any ScheduledTimer)?
    /// The background flag of the run the card follows.
    private var background = false

    /// A card model.
    ///
    /// - Parameters:
    ///   - sdk: read for capture progress and the configured frame count.
    ///   - delegate: tells whether the last stage belonged to a background run.
    ///   - scheduler: fires the fade timer on the UI queue.
    public init(sdk: any MultiSetControlling, delegate: MultiSetSDKDelegate, scheduler: any SDKScheduler) {
        self.sdk = sdk
        self.delegate = delegate
        self.scheduler = scheduler
    }

    /// Moves the card on.
    public func receive(_ state: RunStatusState) {
        switch state {
        case .capturing:
            background = delegate.lastStageWasBackground
            let (index, total) = captureIndex()
            show(.capturing(index: index, total: total))
        case .uploading:
            background = delegate.lastStageWasBackground
            show(.uploading)
        case .awaitingResponse:
            background = delegate.lastStageWasBackground
            show(.matching)
        case .idle:
            // The result callback, when there is one, follows at once and replaces this; a silently
            // failed or cancelled run keeps the red mark.
            background = delegate.lastStageWasBackground
            if card?.isFinished == false { finish(.notLocalized) }
        case .succeeded: finish(.localized)
        case .failed: finish(.notLocalized)
        }
    }

    /// Updates `Capturing <i>/<n>` from the SDK's capture progress (the screen's poll).
    public func refreshProgress() {
        guard let c = card, case .capturing = c.phase else { return }
        let (index, total) = captureIndex()
        let next = RunStatusCard(phase: .capturing(index: index, total: total), isBackground: c.isBackground)
        if next != c {
            card = next
            notifyChange()
        }
    }

    /// Hides the card at once (reset).
    public func clear() {
        fadeTimer?.cancel()
        fadeTimer = nil
        card = nil
        notifyChange()
    }

    private func captureIndex() -> (Int, Int) {
        let expected: Int
        if let c = sdk.config {
            expected = c.localizationMode == .multiFrame ? c.numberOfFrames : 1
        } else {
            expected = 1
        }
        let total = max(1, sdk.captureProgress?.total ?? expected)
        return (min((sdk.captureProgress?.captured ?? 0) + 1, total), total)
    }

    private func show(_ phase: RunStatusCard.Phase) {
        fadeTimer?.cancel()
        fadeTimer = nil
        card = RunStatusCard(phase: phase, isBackground: background)
        notifyChange()
    }

    private func finish(_ phase: RunStatusCard.Phase) {
        show(phase)
        let box = WeakBox(self)
        fadeTimer = scheduler.schedule(after: Self.fadeDelay) {
            guard let model = box.value else { return }
            model.card = nil
            model.fadeTimer = nil
            model.notifyChange()
        }
    }
}
