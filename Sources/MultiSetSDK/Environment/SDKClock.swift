import Foundation

/// A monotonic clock in seconds (SPEC §3.2). Run timers use it; the gate uses frame timestamps.
public protocol SDKClock: Sendable {
    /// Monotonic seconds since an arbitrary origin.
    func now() -> TimeInterval
    /// The wall-clock date (result timestamps, GPS fix age). Defaults to `Date()`.
    func wallDate() -> Date
}

extension SDKClock {
    /// `Date()`.
    public func wallDate() -> Date { Date() }
}

/// The system's monotonic clock (`DispatchTime`).
public struct SystemClock: SDKClock {
    /// Creates the clock.
    public init() {}

    /// Uptime in seconds.
    public func now() -> TimeInterval { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}
