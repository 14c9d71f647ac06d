import Foundation

/// A virtual clock and scheduler for tests: time moves only through ``advance(by:)``, and due
/// timers fire in time order (ties in scheduling order) on the caller's thread. Nothing sleeps.
///
/// Shared by the SDK's tests and by anything built on the SDK (the sample kit's view-model tests),
/// which is why it is public API of `MultiSetSDK` rather than a test-only target.
public final class ManualScheduler: SDKClock, SDKScheduler, @unchecked Sendable {
    private struct Entry {
        let id: Int
        let due: TimeInterval
        let action: @Sendable () -> Void
    }

    private let lock = NSLock()
    private var current: TimeInterval
    private var entries: [Entry] = []
    private var nextID = 0
    private let epoch: Date

    /// Creates a clock at `start` seconds; `wallDate()` is `epoch + now()`.
    public init(start: TimeInterval = 1000, epoch: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = start
        self.epoch = epoch
    }

    /// The virtual time.
    public func now() -> TimeInterval { lock.withLock { current } }

    /// `epoch + now()`.
    public func wallDate() -> Date { epoch.addingTimeInterval(now()) }

    /// Number of timers waiting.
    public var pendingCount: Int { lock.withLock { entries.count } }

    /// Delays of the waiting timers from now, sorted.
    public var pendingDelays: [TimeInterval] {
        lock.withLock { entries.map { $0.due - current }.sorted() }
    }

    /// Schedules `action` at `now() + delay`.
    public func schedule(after delay: TimeInterval, _ action: @escaping @Sendable () -> Void) -> any ScheduledTimer {
        lock.withLock {
            nextID += 1
            entries.append(Entry(id: nextID, due: current + max(0, delay), action: action))
            return ManualTimer(id: nextID, owner: self)
        }
    }

    /// Moves time forward by `seconds`, firing every timer that falls due, in order.
    public func advance(by seconds: TimeInterval) {
        let target = now() + seconds
        while let entry = popDue(before: target) { entry.action() }
        lock.withLock { current = max(current, target) }
    }

    /// Fires timers due now (zero-delay timers) without moving time.
    public func runDue() { advance(by: 0) }

    fileprivate func cancel(id: Int) {
        lock.withLock { entries.removeAll { $0.id == id } }
    }

    private func popDue(before target: TimeInterval) -> Entry? {
        lock.withLock {
            guard
                let index = entries.indices.filter({ entries[$0].due <= target + 1e-12 })
                    .min(by: { (entries[$0].due, entries[$0].id) < (entries[$1].due, entries[$1].id) })
            else { return nil }
            let entry = entries.remove(at: index)
            current = max(current, entry.due)
            return entry
        }
    }
}

private struct ManualTimer: ScheduledTimer {
    let id: Int
    weak var owner: ManualScheduler?
    func cancel() { owner?.cancel(id: id) }
}
