import Foundation

/// The host's signals (SPEC §4.5–4.7, §10.3) as their own value: the tracking signal and its mapped
/// state, the app's activity and the frame source. Each signal returns what it means for the session
/// (a state change, a world-origin reset, a loss, normal tracking after a loss); ``SessionMachine``
/// acts on that.
struct HostSignals: Sendable, Equatable {
    /// What a tracking signal means.
    struct TrackingChange: Sendable, Equatable {
        /// The mapped state, when it changed (`onTrackingStateChanged`).
        var stateChanged: TrackingState?
        /// The state was `.tracking` before this signal.
        var wasTracking = false
        /// `.initializing` after another signal: a new world frame (SPEC §4.6).
        var isWorldOriginReset = false
        /// `.limited`, `.interrupted`, `.notAvailable`.
        var isLoss = false
        /// `.normal`.
        var isNormal = false
        /// `.normal` after a loss since the previous `.normal`.
        var isNormalAfterLoss = false
    }

    /// What an activity signal means.
    enum ActivityChange: Sendable, Equatable {
        /// Nothing changed.
        case none
        /// The app went inactive.
        case becameInactive
        /// The app became active again after being inactive.
        case becameActive
    }

    private(set) var tracking: TrackingSignal?
    private(set) var trackingState: TrackingState?
    private(set) var appActive = true
    private(set) var wasInactive = false
    private(set) var hasFrameSource = false
    private(set) var sawLossSinceNormal = false

    /// Tracking is normal (frames are usable, SPEC §4.7).
    var isTrackingNormal: Bool { tracking == .normal }

    /// Takes a tracking signal.
    mutating func track(_ signal: TrackingSignal) -> TrackingChange {
        var change = TrackingChange()
        let previous = tracking
        tracking = signal
        change.wasTracking = trackingState == .tracking
        if signal.trackingState != trackingState {
            trackingState = signal.trackingState
            change.stateChanged = signal.trackingState
        }
        if signal == .initializing, let previous, previous != .initializing {
            change.isWorldOriginReset = true
        } else if signal.isLoss {
            change.isLoss = true
            sawLossSinceNormal = true
        }
        if signal == .normal {
            change.isNormal = true
            change.isNormalAfterLoss = sawLossSinceNormal
            sawLossSinceNormal = false
        } else if signal != .initializing {
            sawLossSinceNormal = true
        }
        return change
    }

    /// Takes the app's activity.
    mutating func setAppActive(_ active: Bool) -> ActivityChange {
        guard active != appActive else { return .none }
        appActive = active
        if !active {
            wasInactive = true
            return .becameInactive
        }
        guard wasInactive else { return .none }
        wasInactive = false
        return .becameActive
    }

    /// A frame source was attached.
    mutating func frameSourceAttached() { hasFrameSource = true }

    /// After `release()`: the host's facts stay, the loss and inactivity bookkeeping starts again.
    func afterRelease() -> HostSignals {
        var h = HostSignals()
        h.tracking = tracking
        h.trackingState = trackingState
        h.appActive = appActive
        h.hasFrameSource = hasFrameSource
        return h
    }
}
