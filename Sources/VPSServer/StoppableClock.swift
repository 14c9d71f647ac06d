import Synchronization
import VPSGeometry

/// A deadline clock that can be stopped: from then on it reads the end of time, so every deadline on
/// it has passed (how `VPSService.shutdown` ends the queries in flight).
final class StoppableClock: DeadlineClock {
    private let stopped = Mutex(false)
    private let base = MonotonicDeadlineClock()

    func now() -> Double { stopped.withLock { $0 } ? .infinity : base.now() }
    func stop() { stopped.withLock { $0 = true } }
}
