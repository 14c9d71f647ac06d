import Foundation
import Synchronization

/// One answered query as the console shows it (`GET /v1/console/queries`, the stream's events).
public struct QueryLogEntry: Codable, Equatable, Sendable {
    /// A camera pose for the 3D viewer: `mapFromCamera` in the computer-vision camera convention
    /// (x right, y down, z forward), in the queried map's right-handed frame, metres.
    public struct ViewerPose: Codable, Equatable, Sendable {
        /// Camera centre `[x, y, z]`.
        public var position: [Double]
        /// Orientation `[x, y, z, w]`.
        public var rotation: [Double]
    }
    /// Increasing over the server's life, across accounts (the stream's event id).
    public var sequence: Int
    /// When the answer was sent, ISO-8601 UTC.
    public var time: String
    /// The route's metric name (`query-form`, `query`, `multi-image-query`, `object-query`).
    public var route: String
    /// `vps-1`, `vps-2`, `multi-frame` or `object`.
    public var mode: String
    /// The map or map-set code asked for (nil when the request could not be read).
    public var target: String?
    /// The map the pose was found in.
    public var answeredMap: String?
    public var poseFound: Bool
    public var confidence: Double?
    public var inlierMargin: Double?
    /// Time from the complete request to the answer, milliseconds.
    public var milliseconds: Int
    /// Engine time per localizer stage, milliseconds.
    public var stages: [String: Double]
    /// The error code or the localizer's reason when no pose was answered.
    public var failure: String?
    /// The found camera, when the query named a single map.
    public var camera: ViewerPose?
}

/// The recent queries of every account and the waiters of the console's event stream.
///
/// Each account sees only its own entries: `entries(accountID:after:)` and `wait` filter by the
/// account the caller's token names. At most `capacity` entries are kept per account; per-map usage
/// (queries and poses found per minute) is kept for the last `usageMinutes` minutes.
public final class QueryLog: Sendable {
    struct Waiter {
        var accountID: String
        var after: Int
        var deliver: @Sendable ([QueryLogEntry]) -> Void
    }
    struct State {
        var next = 1
        var entries: [String: [QueryLogEntry]] = [:]
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
        /// account → target code → minute → (queries, found).
        var usage: [String: [String: [Int: (Int, Int)]]] = [:]
    }
    let capacity: Int
    let usageMinutes: Int
    private let state = Mutex(State())

    /// A log keeping `capacity` entries per account and `usageMinutes` minutes of usage.
    public init(capacity: Int = 200, usageMinutes: Int = 120) {
        self.capacity = max(1, capacity)
        self.usageMinutes = max(1, usageMinutes)
    }

    /// The usage key of queries whose target did not resolve to one of the account's records (so that
    /// made-up codes cannot grow the table).
    public static let unresolvedTarget = "(not found or unreadable)"

    /// Appends an entry of an account (its `sequence` is assigned here), counts it in the account's usage
    /// under `usageKey` (a resolved target; nil counts it as `unresolvedTarget`) and wakes that account's
    /// waiters. Usage keys without a query in the last `usageMinutes` minutes are dropped.
    @discardableResult
    public func append(_ entry: QueryLogEntry, accountID: String, now: Double, usageKey: String?) -> QueryLogEntry {
        let (stored, woken) = state.withLock { s -> (QueryLogEntry, [Waiter]) in
            var e = entry
            e.sequence = s.next
            s.next += 1
            var list = s.entries[accountID, default: []]
            list.append(e)
            if list.count > capacity { list.removeFirst(list.count - capacity) }
            s.entries[accountID] = list
            let minute = Int((now / 60).rounded(.down))
            let key = usageKey ?? Self.unresolvedTarget
            var perMap = s.usage[accountID, default: [:]]
            var buckets = perMap[key, default: [:]]
            let (q, f) = buckets[minute] ?? (0, 0)
            buckets[minute] = (q + 1, f + (e.poseFound ? 1 : 0))
            perMap[key] = buckets
            let oldest = minute - usageMinutes
            perMap = perMap.compactMapValues { b in
                let kept = b.filter { $0.key > oldest }
                return kept.isEmpty ? nil : kept
            }
            s.usage[accountID] = perMap
            let ids = s.waiters.filter { $0.value.accountID == accountID }.map(\.key)
            return (e, ids.compactMap { s.waiters.removeValue(forKey: $0) })
        }
        for w in woken { w.deliver([stored]) }
        return stored
    }

    /// The account's entries with a sequence above `after`, oldest first.
    public func entries(accountID: String, after: Int = 0) -> [QueryLogEntry] {
        state.withLock { $0.entries[accountID, default: []].filter { $0.sequence > after } }
    }

    /// Delivers the account's entries after `after` at once when there are any; otherwise the next one
    /// appended, or `[]` after `timeout` seconds. `deliver` is called exactly once, never under the lock.
    public func wait(
        accountID: String, after: Int, timeout: Double, deliver: @escaping @Sendable ([QueryLogEntry]) -> Void
    ) {
        let (ready, id) = state.withLock { s -> ([QueryLogEntry], Int?) in
            let ready = s.entries[accountID, default: []].filter { $0.sequence > after }
            guard ready.isEmpty else { return (ready, nil) }
            s.nextWaiter += 1
            s.waiters[s.nextWaiter] = Waiter(accountID: accountID, after: after, deliver: deliver)
            return ([], s.nextWaiter)
        }
        guard let id else { return deliver(ready) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in
            guard let w = self?.state.withLock({ $0.waiters.removeValue(forKey: id) }) else { return }
            w.deliver([])
        }
    }

    /// Waiting stream requests (tests and gauges).
    public var waiting: Int { state.withLock { $0.waiters.count } }

    /// Answers every waiter with no entries (shutdown).
    public func releaseWaiters() {
        let all = state.withLock { s -> [Waiter] in
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for w in all { w.deliver([]) }
    }

    /// One map's usage per minute.
    public struct Usage: Codable, Equatable, Sendable {
        /// One minute of one map.
        public struct Minute: Codable, Equatable, Sendable {
            /// Minutes since 1970.
            public var minute: Int
            public var queries: Int
            public var found: Int
        }
        /// The code the queries named.
        public var target: String
        public var queries: Int
        public var found: Int
        /// Oldest first; minutes without queries are left out.
        public var minutes: [Minute]
    }

    /// The account's usage per target code (most queried first) over the last `usageMinutes` minutes.
    public func usage(accountID: String, now: Double) -> [Usage] {
        let minute = Int((now / 60).rounded(.down))
        let perMap = state.withLock { $0.usage[accountID] ?? [:] }
        return perMap.map { code, buckets in
            let minutes = buckets.filter { $0.key > minute - usageMinutes }.sorted { $0.key < $1.key }.map {
                Usage.Minute(minute: $0.key, queries: $0.value.0, found: $0.value.1)
            }
            return Usage(
                target: code, queries: minutes.reduce(0) { $0 + $1.queries },
                found: minutes.reduce(0) { $0 + $1.found }, minutes: minutes)
        }.sorted { ($0.queries, $1.target) > ($1.queries, $0.target) }
    }
}

/// The engine time per stage of the query running on this thread, collected for its log entry
/// (`LocalizerEngine` reports into `QueryStages.current` when one is bound).
public final class QueryStages: Sendable {
    /// The collector bound for the query running now, if any.
    @TaskLocal public static var current: QueryStages?
    private let seconds = Mutex([String: Double]())

    /// An empty collector.
    public init() {}

    /// Adds stage times, seconds.
    public func add(_ stages: [String: Double]) {
        seconds.withLock { s in for (k, v) in stages { s[k, default: 0] += v } }
    }

    /// The collected times, milliseconds.
    public var milliseconds: [String: Double] {
        seconds.withLock { s in s.mapValues { ($0 * 1e4).rounded() / 10 } }
    }
}
