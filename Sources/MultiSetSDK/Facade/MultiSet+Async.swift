import Foundation

extension MultiSet {
    /// Every callback as a value, from now on, in order. Each access makes a new stream; a consumer that
    /// falls behind loses the oldest events first (the newest 256 are kept), and every stream ends on
    /// ``release()`` and when the instance is deallocated.
    public var events: AsyncStream<MultiSetEvent> { driver.makeStream() }

    /// Starts a foreground run (``localize()``) and waits for its own outcome: never another run's.
    ///
    /// Silent retries (`firstLocalizationUntilSuccess`) belong to the run; the first reported outcome
    /// ends the wait.
    ///
    /// - Returns: the accepted result.
    /// - Throws: ``MultiSetError`` for a reported failure (`code` `.alreadyLocalizing` when a run or
    ///   retry was already pending, `.notInitialized` before `initialize`), ``LocalizationRejected`` when
    ///   the gate discards the fix, and `CancellationError` when the run ends without an outcome
    ///   (`stopLocalization()`, `resetSession()`, a tracking break, the app going inactive, `release()`)
    ///   or the waiting task is cancelled, which also stops the run.
    public func localizeAndWait() async throws -> LocalizationResult {
        let attempt = driver.newAttemptID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                driver.start(attempt: attempt, continuation)
            }
        } onCancel: {
            driver.cancel(attempt: attempt)
        }
    }
}
