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

/// Per-client token buckets: `limit` requests per `window` seconds, refilled continuously.
public final class RateLimiter: Sendable {
    let limit: Double
    let window: Double
    private let buckets = Mutex([String: (tokens: Double, at: Double)]())

    /// A limiter allowing `limit` requests per `window` seconds per key.
    public init(limit: Int, window: Double = 60) {
        self.limit = Double(max(1, limit))
        self.window = window
    }

    /// Takes one token for `key` at time `now`; returns nil when allowed, else the seconds to wait.
    public func take(_ key: String, now: Double) -> Int? {
        buckets.withLock { b in
            let rate = limit / window
            var bucket = b[key] ?? (limit, now)
            bucket.tokens = min(limit, bucket.tokens + (now - bucket.at) * rate)
            bucket.at = now
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                b[key] = bucket
                return nil
            }
            b[key] = bucket
            return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
        }
    }
}

/// Prometheus-style counters and histograms, rendered as text exposition format.
public final class Metrics: Sendable {
    struct State {
        var requests: [String: Int] = [:]  // "route|status"
        var errors: [String: Int] = [:]  // code
        var latency: [String: [Int]] = [:]  // route → bucket counts
        var latencySum: [String: Double] = [:]
        var stageSum: [String: Double] = [:]
        var stageCount: [String: Int] = [:]
    }
    static let buckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    private let state = Mutex(State())
    /// Extra gauges, sampled on render (maps loaded, memory).
    let gauges: @Sendable () -> [(String, Double)]

    /// Metrics with extra gauges.
    public init(gauges: @escaping @Sendable () -> [(String, Double)] = { [] }) { self.gauges = gauges }

    /// Records one request.
    public func record(route: String, status: Int, seconds: Double, errorCode: String?) {
        state.withLock { s in
            s.requests["\(route)|\(status)", default: 0] += 1
            if let c = errorCode { s.errors[c, default: 0] += 1 }
            var counts = s.latency[route] ?? [Int](repeating: 0, count: Self.buckets.count + 1)
            let k = Self.buckets.firstIndex { seconds <= $0 } ?? Self.buckets.count
            counts[k] += 1
            s.latency[route] = counts
            s.latencySum[route, default: 0] += seconds
        }
    }

    /// Records the time of one engine stage.
    public func recordStage(_ stage: String, seconds: Double) {
        state.withLock { s in
            s.stageSum[stage, default: 0] += seconds
            s.stageCount[stage, default: 0] += 1
        }
    }

    /// The exposition text.
    public func render() -> String {
        let s = state.withLock { $0 }
        var out = "# HELP vps_requests_total HTTP requests by route and status.\n# TYPE vps_requests_total counter\n"
        for (key, n) in s.requests.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "|")
            out += "vps_requests_total{route=\"\(parts[0])\",status=\"\(parts[1])\"} \(n)\n"
        }
        out += "# HELP vps_errors_total Error answers by code.\n# TYPE vps_errors_total counter\n"
        for (code, n) in s.errors.sorted(by: { $0.key < $1.key }) { out += "vps_errors_total{code=\"\(code)\"} \(n)\n" }
        out += "# HELP vps_request_seconds Request latency.\n# TYPE vps_request_seconds histogram\n"
        for (route, counts) in s.latency.sorted(by: { $0.key < $1.key }) {
            var cumulative = 0
            for (k, le) in Self.buckets.enumerated() {
                cumulative += counts[k]
                out += "vps_request_seconds_bucket{route=\"\(route)\",le=\"\(le)\"} \(cumulative)\n"
            }
            cumulative += counts[Self.buckets.count]
            out += "vps_request_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(cumulative)\n"
            out += "vps_request_seconds_sum{route=\"\(route)\"} \(s.latencySum[route] ?? 0)\n"
            out += "vps_request_seconds_count{route=\"\(route)\"} \(cumulative)\n"
        }
        out += "# HELP vps_stage_seconds Engine time per stage.\n# TYPE vps_stage_seconds summary\n"
        for (stage, sum) in s.stageSum.sorted(by: { $0.key < $1.key }) {
            out +=
                "vps_stage_seconds_sum{stage=\"\(stage)\"} \(sum)\nvps_stage_seconds_count{stage=\"\(stage)\"} \(s.stageCount[stage] ?? 0)\n"
        }
        for (name, value) in gauges() { out += "# TYPE \(name) gauge\n\(name) \(value)\n" }
        return out
    }
}
