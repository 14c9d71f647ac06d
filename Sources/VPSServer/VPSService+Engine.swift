import Foundation
import Synchronization
import VPSGeometry
import VPSProtocol

/// The engine executor: a bounded pool and a deadline per query.
extension VPSService {
    /// Localization work on the engine pool, under a deadline that starts now: a full queue is 503 with
    /// `Retry-After` at once; past the deadline the request is answered 503 `ENGINE_TIMEOUT` (by the
    /// watchdog if the work is still running) and the work stops at its next check.
    func runEngine(_ context: Context, _ once: ReplyOnce) {
        let timeout = config.engineTimeout
        var timed = context
        timed.deadline = Deadline.after(timeout, clock: engineClock)
        let c = timed, deadline = timed.deadline
        let accepted = enginePool.submit { [self] in
            guard !deadline.hasPassed else {
                once(Self.error(APIError.engineTimeout(timeout)), c)
                return
            }
            let response = answer(c)
            // Measured on the monotonic clock itself (after `shutdown` the engine clock reads infinity).
            metrics.recordEngineRun(overrun: max(0, MonotonicDeadlineClock().now() - deadline.instant))
            once(deadline.hasPassed ? Self.error(APIError.engineTimeout(timeout)) : response, c)
        }
        guard accepted else {
            metrics.count("vps_rejected_busy_total")
            once(Self.busy("Every localization worker is busy; retry shortly"), c)
            return
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in
            if once.isPending { self?.metrics.count("vps_engine_timeouts_total") }
            once(Self.error(APIError.engineTimeout(timeout)), c)
        }
    }
}
