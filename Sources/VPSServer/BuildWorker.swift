import Foundation
import Synchronization
import VPSMap
import VPSProtocol

/// One `multiset worker`: claims map builds from the cluster's job table, builds each from its
/// staged dataset blob, publishes the map as a blob and settles the job under its lease.
///
/// While a build runs, a thread renews the lease every third of its length. A worker that dies
/// (kill -9, a lost machine) stops renewing; once the lease lapses another worker claims the job
/// again (its next attempt), and only the lease holder's `settle` is written, so a map is finished
/// once. A worker whose lease was taken over finishes its build and drops the result. A build that
/// fails on its input (`MapBuildError`, a bad dataset) fails the map at once; an unexpected error
/// (the database, the disk) queues the job again after `retryAfter`, up to `maxAttempts` attempts.
public final class BuildWorker: Sendable {
    /// How the worker runs.
    public struct Settings: Sendable {
        /// The name in the job table (unique per process: host and pid by default).
        public var name: String
        /// Seconds a claim holds without renewal.
        public var lease: Double = 60
        /// Claims (including ones whose worker died) before a job is failed.
        public var maxAttempts = 3
        /// Seconds before a job whose attempt failed unexpectedly is claimed again.
        public var retryAfter = 5.0
        /// Where datasets are unpacked and maps written while they build (emptied after each).
        public var workDirectory: URL

        /// Settings with defaults for the lease and attempts.
        public init(name: String, workDirectory: URL) {
            self.name = name
            self.workDirectory = workDirectory
        }
    }

    /// What one `runOnce` did.
    public enum Outcome: Equatable, Sendable {
        /// No job was due.
        case idle
        /// The map is active (or failed on its input) and this worker's result was recorded.
        case settled(code: String, status: MapStatus, attempt: Int)
        /// The lease was lost meanwhile (another worker took over, or the map was deleted): dropped.
        case dropped(code: String, attempt: Int)
        /// The attempt failed unexpectedly; the job is queued again (or failed when out of attempts).
        case retry(code: String, attempt: Int, error: String)
    }

    let cluster: PostgresCluster
    let cache: MapBlobCache
    let settings: Settings
    let clock: ServerClock
    let log: @Sendable (String) -> Void
    /// The record life cycle (outcomes are written by `settle`, with the job).
    var library: MapLibrary { MapLibrary(store: cluster.store, clock: clock) }

    /// A worker over a cluster; `log` receives one line per claim and per outcome.
    public init(
        cluster: PostgresCluster, settings: Settings, clock: ServerClock = SystemServerClock(),
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) throws {
        self.cluster = cluster
        self.settings = settings
        self.clock = clock
        self.log = log
        cache = try MapBlobCache(blobs: cluster.blobs, root: settings.workDirectory)
    }

    /// Claims one due job and runs it to its end.
    public func runOnce() throws(StoreError) -> Outcome {
        let (claimed, abandoned) = try cluster.jobs.claim(
            worker: settings.name, now: clock.now(), lease: settings.lease, maxAttempts: settings.maxAttempts)
        for job in abandoned { failMap(job) }
        guard let job = claimed else { return .idle }
        guard let record = try cluster.store.map(idOrCode: job.mapID, accountID: job.accountID, kind: .map) else {
            // Deleted after it was queued.
            try cluster.jobs.cancel(mapID: job.mapID)
            return .dropped(code: job.mapID, attempt: job.attempts)
        }
        log("claimed \(record.code) (attempt \(job.attempts), lease \(Int(settings.lease)) s)")
        let lost = Atomic<Bool>(false)
        let renewal = LeaseRenewal(every: settings.lease / 3) { [self] in
            let held =
                (try? cluster.jobs.renew(
                    mapID: job.mapID, worker: settings.name, now: clock.now(), lease: settings.lease)) ?? true
            if !held { lost.store(true, ordering: .relaxed) }
            return held
        }
        let folder = settings.workDirectory.appendingPathComponent("build-\(job.mapID)")
        defer {
            renewal.stop()
            try? FileManager.default.removeItem(at: folder)
        }
        var outcome = record
        do {
            try? FileManager.default.removeItem(at: folder)
            guard let archive = try cluster.blobs.get(ClusterBackend.datasetBlob(mapID: job.mapID)) else {
                throw MapBuildError.captures("the staged dataset of \(record.code) is missing")
            }
            let dataset = folder.appendingPathComponent("dataset")
            do { try DatasetArchive.unpack(archive, into: dataset) } catch {
                throw MapBuildError.captures("the staged dataset of \(record.code) is unreadable: \(error)")
            }
            let map = try MapBuildJob.build(capturesIn: dataset, code: record.code, name: record.name) { _, _ in }
            guard !lost.load(ordering: .relaxed) else { return .dropped(code: record.code, attempt: job.attempts) }
            let out = folder.appendingPathComponent("map.vpsmap")
            try MapFile.write(map, to: out, meshTo: out.deletingPathExtension().appendingPathExtension("glb"))
            let (file, size) = try cache.publish(
                mapFile: out, meshFile: out.deletingPathExtension().appendingPathExtension("glb"))
            outcome = library.activated(record, file: file, bytes: size)
        } catch let error as MapBuildError {
            outcome = library.failed(record, reason: MapBuildJob.failureText(error))
        } catch {
            let text = "\(error)"
            _ = try? cluster.jobs.fail(
                mapID: job.mapID, worker: settings.name, error: text, now: clock.now(),
                retryAfter: settings.retryAfter, maxAttempts: settings.maxAttempts)
            if let after = try? cluster.jobs.job(mapID: job.mapID), after.state == .failed { failMap(after) }
            return .retry(code: record.code, attempt: job.attempts, error: text)
        }
        renewal.stop()
        guard try cluster.jobs.settle(mapID: job.mapID, worker: settings.name, map: outcome) else {
            return .dropped(code: record.code, attempt: job.attempts)
        }
        try? cluster.blobs.delete(ClusterBackend.datasetBlob(mapID: job.mapID))
        return .settled(code: record.code, status: outcome.status, attempt: job.attempts)
    }

    /// Fails the map of a job that ran out of attempts.
    func failMap(_ job: BuildJob) {
        guard let m = try? cluster.store.map(idOrCode: job.mapID, accountID: job.accountID, kind: .map),
            m.status == .processing
        else { return }
        let failed = library.fail(
            m, reason: "MAP_BUILD_FAILED: \(job.error.isEmpty ? "the build did not finish" : job.error)")
        try? cluster.blobs.delete(ClusterBackend.datasetBlob(mapID: job.mapID))
        log("failed \(m.code): \(failed.failure)")
    }
}

/// A thread calling `renew` every `every` seconds until it answers false or `stop` is called.
final class LeaseRenewal: Sendable {
    private let stopped = Mutex(false)
    private let wake = DispatchSemaphore(value: 0)

    init(every seconds: Double, renew: @escaping @Sendable () -> Bool) {
        let thread = Thread { [self] in
            while true {
                _ = wake.wait(timeout: .now() + seconds)
                if stopped.withLock({ $0 }) || !renew() { return }
            }
        }
        thread.name = "vps-lease"
        thread.start()
    }

    /// Ends the renewals (idempotent; at most one more renewal may be in flight).
    func stop() {
        let first = stopped.withLock { s -> Bool in
            defer { s = true }
            return !s
        }
        if first { wake.signal() }
    }
}
