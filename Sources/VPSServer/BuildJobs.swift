import Synchronization

/// One map build as a durable job: queued by the server that accepted the upload, claimed by any
/// worker under a lease, finished exactly once by the lease holder.
public struct BuildJob: Equatable, Sendable {
    /// Where a job is in its life.
    public enum State: String, Sendable {
        /// Waiting for a worker (again, after a failed attempt, from `notBefore`).
        case queued
        /// Claimed by `worker` until `leaseUntil`; past it any worker may claim it again.
        case running
        /// Built; the map record says what came of it.
        case done
        /// Every attempt failed or its lease lapsed `maxAttempts` times.
        case failed
    }

    /// The map being built (one job per map).
    public var mapID: String
    /// The owning account.
    public var accountID: String
    /// Where the job is.
    public var state: State
    /// Attempts started so far (claims, including ones whose worker died).
    public var attempts: Int
    /// The worker holding the lease, while running.
    public var worker: String
    /// End of the lease, seconds since 1970 (running jobs).
    public var leaseUntil: Double
    /// The last attempt's error.
    public var error: String

    /// A job record.
    public init(
        mapID: String, accountID: String, state: State, attempts: Int, worker: String, leaseUntil: Double,
        error: String
    ) {
        self.mapID = mapID
        self.accountID = accountID
        self.state = state
        self.attempts = attempts
        self.worker = worker
        self.leaseUntil = leaseUntil
        self.error = error
    }
}

/// Durable build jobs shared by servers and workers. Times are seconds since 1970 from the caller's
/// clock (all processes of a cluster should keep their clocks in sync, e.g. with NTP; leases are
/// minutes, so skew of a second does not matter).
public protocol BuildJobStore: Sendable {
    /// Queues the build of `mapID`; a job already queued or running for it is a `conflict`.
    func enqueue(mapID: String, accountID: String, now: Double) throws(StoreError)
    /// Claims the oldest job that is queued (and due) or whose lease lapsed, for `lease` seconds.
    /// A lapsed job that has used up `maxAttempts` is marked failed instead (and returned in
    /// `abandoned`, so the caller can fail its map). Never hands one job to two workers at once.
    func claim(
        worker: String, now: Double, lease: Double, maxAttempts: Int
    ) throws(StoreError) -> (job: BuildJob?, abandoned: [BuildJob])
    /// Extends the lease; false when `worker` no longer holds it (another worker took the job over).
    func renew(mapID: String, worker: String, now: Double, lease: Double) throws(StoreError) -> Bool
    /// Marks the job done; false when `worker` no longer holds the lease (its result must be dropped).
    func complete(mapID: String, worker: String) throws(StoreError) -> Bool
    /// Records a failed attempt: queued again from `now + retryAfter` while attempts remain, else
    /// failed. False when `worker` no longer holds the lease.
    func fail(
        mapID: String, worker: String, error: String, now: Double, retryAfter: Double, maxAttempts: Int
    ) throws(StoreError) -> Bool
    /// Removes the job (the map was deleted); a running worker's `complete` then answers false.
    func cancel(mapID: String) throws(StoreError)
    /// The job of a map.
    func job(mapID: String) throws(StoreError) -> BuildJob?
}

/// `BuildJobStore` in memory (one process: tests, the embedded default); same semantics as
/// `PostgresBuildJobs`, checked by the same suite.
public final class InMemoryBuildJobs: BuildJobStore {
    private struct Entry {
        var job: BuildJob
        var notBefore: Double
        var created: Double
        var sequence: Int
    }
    private struct State {
        var entries: [String: Entry] = [:]
        var sequence = 0
    }
    private let state = Mutex(State())

    /// No jobs.
    public init() {}

    public func enqueue(mapID: String, accountID: String, now: Double) throws(StoreError) {
        try state.withLock { s throws(StoreError) in
            if let e = s.entries[mapID], e.job.state == .queued || e.job.state == .running {
                throw .conflict("build of \(mapID)")
            }
            s.sequence += 1
            s.entries[mapID] = Entry(
                job: BuildJob(
                    mapID: mapID, accountID: accountID, state: .queued, attempts: 0, worker: "", leaseUntil: 0,
                    error: ""), notBefore: now, created: now, sequence: s.sequence)
        }
    }

    public func claim(
        worker: String, now: Double, lease: Double, maxAttempts: Int
    ) throws(StoreError) -> (job: BuildJob?, abandoned: [BuildJob]) {
        state.withLock { s in
            var abandoned: [BuildJob] = []
            let candidates = s.entries.values.filter {
                ($0.job.state == .queued && $0.notBefore <= now)
                    || ($0.job.state == .running && $0.job.leaseUntil < now)
            }.sorted { ($0.created, $0.sequence) < ($1.created, $1.sequence) }
            for c in candidates {
                let id = c.job.mapID
                if c.job.attempts >= maxAttempts {
                    s.entries[id]!.job.state = .failed
                    s.entries[id]!.job.worker = ""
                    if s.entries[id]!.job.error.isEmpty {
                        s.entries[id]!.job.error = "the build stopped \(c.job.attempts) times (worker lost)"
                    }
                    abandoned.append(s.entries[id]!.job)
                    continue
                }
                s.entries[id]!.job.state = .running
                s.entries[id]!.job.worker = worker
                s.entries[id]!.job.leaseUntil = now + lease
                s.entries[id]!.job.attempts += 1
                return (s.entries[id]!.job, abandoned)
            }
            return (nil, abandoned)
        }
    }

    public func renew(mapID: String, worker: String, now: Double, lease: Double) throws(StoreError) -> Bool {
        state.withLock { s in
            guard let e = s.entries[mapID], e.job.state == .running, e.job.worker == worker else { return false }
            s.entries[mapID]!.job.leaseUntil = now + lease
            return true
        }
    }

    public func complete(mapID: String, worker: String) throws(StoreError) -> Bool {
        state.withLock { s in
            guard let e = s.entries[mapID], e.job.state == .running, e.job.worker == worker else { return false }
            s.entries[mapID]!.job.state = .done
            s.entries[mapID]!.job.worker = ""
            return true
        }
    }

    public func fail(
        mapID: String, worker: String, error: String, now: Double, retryAfter: Double, maxAttempts: Int
    ) throws(StoreError) -> Bool {
        state.withLock { s in
            guard let e = s.entries[mapID], e.job.state == .running, e.job.worker == worker else { return false }
            s.entries[mapID]!.job.state = e.job.attempts < maxAttempts ? .queued : .failed
            s.entries[mapID]!.job.worker = ""
            s.entries[mapID]!.job.error = error
            s.entries[mapID]!.notBefore = now + retryAfter
            return true
        }
    }

    public func cancel(mapID: String) throws(StoreError) {
        state.withLock { _ = $0.entries.removeValue(forKey: mapID) }
    }

    public func job(mapID: String) throws(StoreError) -> BuildJob? { state.withLock { $0.entries[mapID]?.job } }
}
