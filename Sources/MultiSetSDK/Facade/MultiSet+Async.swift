import Foundation

extension MultiSet {
    /// Every callback as a value, from now on, in order. Each access makes a new stream.
    public var events: AsyncStream<MultiSetEvent> { driver.makeStream() }

    /// Starts a foreground run (``localize()``) and waits for its outcome.
    ///
    /// - Returns: the accepted result.
    /// - Throws: ``MultiSetError`` for a reported failure, ``LocalizationRejected`` when the gate
    ///   discards the fix.
    public func localizeAndWait() async throws -> LocalizationResult {
        guard isAuthenticated else { throw MultiSetError(kind: .auth, message: Messages.notAuthenticated) }
        let stream = events
        localize()
        for await event in stream {
            switch event {
            case .localizationSuccess(let result): return result
            case .localizationFailure(let message):
                throw lastLocalizationError ?? MultiSetError(kind: .server, message: message)
            case .localizationFalsePositive(let info): throw LocalizationRejected(info: info)
            default: continue
            }
        }
        throw MultiSetError(kind: .network, message: Messages.network("cancelled"))
    }
}
