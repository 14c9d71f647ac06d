import Dispatch
import Foundation

/// A scheduled one-shot timer that can be cancelled.
public protocol ScheduledTimer: Sendable {
    /// Cancels the timer; its action will not run (a no-op if it already ran).
    func cancel()
}

/// Runs one-shot actions after a delay (SPEC §3.2).
public protocol SDKScheduler: Sendable {
    /// Schedules `action` after `delay` seconds (0 or less: as soon as possible).
    func schedule(after delay: TimeInterval, _ action: @escaping @Sendable () -> Void) -> any ScheduledTimer
}

/// A scheduler over a Dispatch queue.
public struct DispatchScheduler: SDKScheduler {
    private let queue: DispatchQueue

    /// Creates a scheduler firing on `queue` (default: a private serial queue).
    public init(queue: DispatchQueue = DispatchQueue(label: "multiset.scheduler")) {
        self.queue = queue
    }

    /// Schedules a cancellable work item.
    public func schedule(after delay: TimeInterval, _ action: @escaping @Sendable () -> Void) -> any ScheduledTimer {
        let item = DispatchWorkItem(block: action)
        queue.asyncAfter(deadline: .now() + max(0, delay), execute: item)
        return DispatchTimerHandle(item: item)
    }
}

private struct DispatchTimerHandle: ScheduledTimer, @unchecked Sendable {
    let item: DispatchWorkItem
    func cancel() { item.cancel() }
}
