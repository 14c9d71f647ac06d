import Foundation
import Synchronization
import VPSProtocol

/// A source of wall-clock time in seconds since 1970, injected so tests control expiry.
public protocol ServerClock: Sendable {
    /// Now, seconds since 1970.
    func now() -> Double
}

/// The system clock.
public struct SystemServerClock: ServerClock {
    /// Builds the clock.
    public init() {}
    public func now() -> Double { Date().timeIntervalSince1970 }
}

/// A clock tests set by hand.
public final class ManualServerClock: ServerClock {
    private let value: Mutex<Double>
    /// A clock at `start`.
    public init(_ start: Double) { value = Mutex(start) }
    public func now() -> Double { value.withLock { $0 } }
    /// Moves the clock forward.
    public func advance(_ seconds: Double) { value.withLock { $0 += seconds } }
}

/// Identifier and code formats (SPEC §17.1).
public enum Identifiers {
    /// 24 lowercase hex digits.
    public static func newID() -> String { Crypto.hex(Crypto.randomBytes(12)) }

    /// True for 24 lowercase hex digits.
    public static func isID(_ s: String) -> Bool {
        s.utf8.count == 24 && s.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// True for `prefix` followed by 12 ASCII uppercase letters or digits.
    public static func isCode(_ s: String, prefix: String) -> Bool {
        let bytes = Array(s.utf8)
        let p = Array(prefix.utf8)
        return bytes.count == p.count + 12 && bytes.starts(with: p)
            && bytes.dropFirst(p.count).allSatisfy { (48...57).contains($0) || (65...90).contains($0) }
    }

    /// `prefix` + 12 uppercase letters or digits.
    public static func newCode(prefix: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return prefix + String(Crypto.randomBytes(12).map { alphabet[Int($0) % alphabet.count] })
    }

    /// ISO-8601 UTC with milliseconds.
    public static func timestamp(_ seconds: Double) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: Date(timeIntervalSince1970: seconds))
    }
}
