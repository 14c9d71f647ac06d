import Foundation

/// The retry and escalation rules of SPEC §8.6, §8.8 and §8.9 as their own value: the silent-retry
/// counter and the first-fix latch, the escalation cooldown and its once-per-background-period rule.
/// It decides; ``SessionMachine`` schedules.
struct RetryPolicy: Sendable, Equatable {
    /// What to do after a run ended without a fix.
    enum Decision: Sendable, Equatable {
        /// A first-until-success retry (1-based) in ``retryDelay``, no callback.
        case silentRetry(Int)
        /// The relocalization loop's next attempt in ``retryDelay``, no callback.
        case relocalizationRetry
        /// Report the failure.
        case report
    }

    /// Silent retries before a first fix, at most (D4).
    static let maxSilentRetries = 5
    /// Seconds between silent or relocalization attempts.
    static let retryDelay: TimeInterval = 1.0
    /// Seconds after an escalation ends before another may start (SPEC §8.9).
    static let escalationCooldown: TimeInterval = 5

    private(set) var silentRetriesUsed = 0
    /// True until the first accepted fix (of this world frame, when nothing recovers it).
    private(set) var firstFixLatch = true
    private(set) var lastEscalationEnd: TimeInterval?
    private(set) var escalatedSinceBackgroundFire = false

    /// After a failed run (SPEC §8.6 a–c).
    mutating func afterFailure(
        of kind: RunKind, error: MultiSetError, firstUntilSuccess: Bool, appActive: Bool, authenticated: Bool
    ) -> Decision {
        if kind == .foreground && firstUntilSuccess && firstFixLatch && appActive && error.isTransient
            && silentRetriesUsed < Self.maxSilentRetries && authenticated
        {
            silentRetriesUsed += 1
            return .silentRetry(silentRetriesUsed)
        }
        if kind == .relocalization && error.isTransient && appActive { return .relocalizationRetry }
        return .report
    }

    /// After a gate rejection: start one multi-frame escalation now (SPEC §8.9)? Records it if so.
    mutating func shouldEscalate(consecutiveRejections: Int, rejection: RejectionKind, now: TimeInterval) -> Bool {
        let cooled = lastEscalationEnd.map { now - $0 >= Self.escalationCooldown - 1e-9 } ?? true
        guard consecutiveRejections == 2, rejection != .suspectedAliasing, cooled, !escalatedSinceBackgroundFire
        else { return false }
        escalatedSinceBackgroundFire = true
        return true
    }

    /// A run ended (an escalation's end starts the cooldown).
    mutating func runEnded(isEscalation: Bool, now: TimeInterval) {
        if isEscalation { lastEscalationEnd = now }
    }

    /// `localize()` or the auto-start began a new attempt: its silent retries count from zero.
    mutating func attemptStarted() { silentRetriesUsed = 0 }

    /// A fix was accepted.
    mutating func accepted() {
        silentRetriesUsed = 0
        firstFixLatch = false
    }

    /// A new world frame nothing will recover: its first fix is a first fix again (D4).
    mutating func newWorldFrame() { firstFixLatch = true }

    /// The background timer fired: an escalation may happen again in this period.
    mutating func backgroundTimerFired() { escalatedSinceBackgroundFire = false }

    /// `resetSession()`, a map change: everything as at the start.
    mutating func reset() { self = RetryPolicy() }
}
