/// A monotonic time source, in seconds from an arbitrary origin, injected so tests move time by hand
/// (and a server can end every deadline at once by jumping its clock to the end of time).
public protocol DeadlineClock: Sendable {
    /// Now, seconds.
    func now() -> Double
}

/// The process's monotonic clock (`ContinuousClock`).
public struct MonotonicDeadlineClock: DeadlineClock {
    static let origin = ContinuousClock.now

    /// The clock.
    public init() {}

    public func now() -> Double {
        let (seconds, attoseconds) = (ContinuousClock.now - Self.origin).components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}

/// The moment by which a piece of work must stop, checked cooperatively between and inside stages
/// (RANSAC checks it every 16 iterations; the localizer between stages).
///
/// Two deadlines are equal when they end at the same instant (the clock is not compared), so option
/// structs holding one stay `Equatable`.
public struct Deadline: Sendable, Equatable, CustomStringConvertible {
    /// The instant on `clock`, seconds (`.infinity` for `never`).
    public let instant: Double
    let clock: (any DeadlineClock)?

    /// A deadline at `instant` seconds of `clock`.
    public init(instant: Double, clock: any DeadlineClock) {
        self.instant = instant
        self.clock = clock
    }

    /// No deadline: `hasPassed` is always false and no clock is read.
    public static let never = Deadline(never: ())

    private init(never: Void) {
        instant = .infinity
        clock = nil
    }

    /// A deadline `seconds` from now on `clock`.
    public static func after(_ seconds: Double, clock: any DeadlineClock = MonotonicDeadlineClock()) -> Deadline {
        Deadline(instant: clock.now() + seconds, clock: clock)
    }

    /// True once the clock has reached the instant.
    public var hasPassed: Bool {
        guard let clock else { return false }
        return clock.now() >= instant
    }

    /// Seconds left (negative once passed; `.infinity` for `never`).
    public var remaining: Double {
        guard let clock else { return .infinity }
        return instant - clock.now()
    }

    /// Seconds past the instant, 0 while it has not passed.
    public var overrun: Double { max(0, -remaining) }

    public static func == (a: Deadline, b: Deadline) -> Bool { a.instant == b.instant }

    public var description: String { clock == nil ? "never" : "deadline at \(instant) s" }
}
