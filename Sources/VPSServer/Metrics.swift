import Synchronization

/// Prometheus-style counters and histograms, rendered as text exposition format.
public final class Metrics: Sendable {
    struct State {
        var requests: [String: Int] = [:]  // "route|status"
        var errors: [String: Int] = [:]  // code
        var latency: [String: [Int]] = [:]  // route → bucket counts
        var latencySum: [String: Double] = [:]
        var stageSum: [String: Double] = [:]
        var stageCount: [String: Int] = [:]
        var counters: [String: Int] = [:]
        var engineRuns = 0
        var engineOverrunMax = 0.0
        var engineOverrunSum = 0.0
    }
    static let buckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    private let state = Mutex(State())
    /// Extra gauges, sampled on render (maps loaded, memory, queue depth).
    private let gauges: Mutex<[@Sendable () -> [(String, Double)]]>

    /// Metrics with extra gauges.
    public init(gauges: @escaping @Sendable () -> [(String, Double)] = { [] }) { self.gauges = Mutex([gauges]) }

    /// Adds gauges sampled on render.
    public func addGauges(_ more: @escaping @Sendable () -> [(String, Double)]) {
        gauges.withLock { $0.append(more) }
    }

    /// Adds one to a counter (`vps_…_total`).
    public func count(_ name: String) {
        state.withLock { $0.counters[name, default: 0] += 1 }
    }

    /// The value of a counter.
    public func counter(_ name: String) -> Int { state.withLock { $0.counters[name] ?? 0 } }

    /// Records one finished engine run and how long it ran past its deadline (0 when it did not).
    public func recordEngineRun(overrun: Double) {
        state.withLock { s in
            s.engineRuns += 1
            s.engineOverrunMax = max(s.engineOverrunMax, overrun)
            s.engineOverrunSum += overrun
        }
    }

    /// The longest time any engine run went on past its deadline, seconds.
    public var engineOverrunMax: Double { state.withLock { $0.engineOverrunMax } }

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
        for (name, n) in s.counters.sorted(by: { $0.key < $1.key }) { out += "# TYPE \(name) counter\n\(name) \(n)\n" }
        out +=
            "# HELP vps_engine_overrun_seconds Time engine runs went on past their deadline.\n"
            + "# TYPE vps_engine_overrun_seconds summary\n"
            + "vps_engine_overrun_seconds_sum \(s.engineOverrunSum)\nvps_engine_overrun_seconds_count \(s.engineRuns)\n"
            + "# TYPE vps_engine_overrun_seconds_max gauge\nvps_engine_overrun_seconds_max \(s.engineOverrunMax)\n"
        for sample in gauges.withLock({ $0 }) {
            for (name, value) in sample() { out += "# TYPE \(name) gauge\n\(name) \(value)\n" }
        }
        return out
    }
}
