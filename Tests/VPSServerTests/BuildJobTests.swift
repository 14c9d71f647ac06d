import Foundation
import Synchronization
import Testing

@testable import VPSServer

/// The build-job life cycle (queue → lease → done / retry / failed), run against the in-memory jobs
/// and PostgreSQL (a throwaway cluster per test; left out when PostgreSQL is not installed, unless
/// `make test-postgres` requires it). Times are explicit seconds: no clock, no sleeping.
@Suite struct BuildJobTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case memory, postgres
        var testDescription: String { rawValue }
        static var testable: [Kind] { allCases.filter { $0 != .postgres || PostgresTestCluster.shouldRun } }
    }

    static func make(_ kind: Kind, connections: Int = 2) throws -> (BuildJobStore, () -> Void) {
        switch kind {
        case .memory: return (InMemoryBuildJobs(), {})
        case .postgres:
            let cluster = try PostgresTestCluster()
            do {
                return (try PostgresBuildJobs(conninfo: cluster.conninfo, connections: connections), { cluster.stop() })
            } catch {
                cluster.stop()
                throw error
            }
        }
    }

    @Test(arguments: Kind.testable)
    func aLapsedLeaseIsClaimedAgainAndOnlyTheHolderFinishes(kind: Kind) throws {
        let (jobs, cleanup) = try Self.make(kind)
        defer { cleanup() }
        try jobs.enqueue(mapID: "m1", accountID: "a", now: 100)
        try jobs.enqueue(mapID: "m2", accountID: "a", now: 101)
        #expect(throws: StoreError.conflict("build of m1")) { try jobs.enqueue(mapID: "m1", accountID: "a", now: 102) }
        // Oldest first; one job per claim.
        let first = try #require(try jobs.claim(worker: "w1", now: 110, lease: 30, maxAttempts: 3).job)
        #expect(first.mapID == "m1" && first.state == .running && first.attempts == 1 && first.leaseUntil == 140)
        let second = try #require(try jobs.claim(worker: "w2", now: 111, lease: 30, maxAttempts: 3).job)
        #expect(second.mapID == "m2")
        #expect(try jobs.claim(worker: "w3", now: 112, lease: 30, maxAttempts: 3).job == nil)
        // w1 renews; w2 dies (no renewal): at 145 its lease has lapsed and w3 takes m2 over.
        #expect(try jobs.renew(mapID: "m1", worker: "w1", now: 130, lease: 30))
        let takeover = try #require(try jobs.claim(worker: "w3", now: 145, lease: 30, maxAttempts: 3).job)
        #expect(takeover.mapID == "m2" && takeover.worker == "w3" && takeover.attempts == 2)
        // The old holder can neither renew nor finish; the new one finishes once.
        #expect(try !jobs.renew(mapID: "m2", worker: "w2", now: 146, lease: 30))
        #expect(try !jobs.complete(mapID: "m2", worker: "w2"))
        #expect(try jobs.complete(mapID: "m2", worker: "w3"))
        #expect(try !jobs.complete(mapID: "m2", worker: "w3"))
        #expect(try jobs.job(mapID: "m2")?.state == .done)
        #expect(try jobs.complete(mapID: "m1", worker: "w1"))
        // A finished map may be built again.
        try jobs.enqueue(mapID: "m2", accountID: "a", now: 200)
        let rebuilt = try jobs.job(mapID: "m2")
        #expect(rebuilt?.state == .queued && rebuilt?.attempts == 0)
    }

    @Test(arguments: Kind.testable)
    func failuresRetryAfterADelayThenGiveUp(kind: Kind) throws {
        let (jobs, cleanup) = try Self.make(kind)
        defer { cleanup() }
        try jobs.enqueue(mapID: "m", accountID: "a", now: 0)
        _ = try jobs.claim(worker: "w", now: 1, lease: 10, maxAttempts: 2)
        #expect(try jobs.fail(mapID: "m", worker: "w", error: "disk full", now: 2, retryAfter: 5, maxAttempts: 2))
        let retried = try jobs.job(mapID: "m")
        #expect(retried?.state == .queued && retried?.error == "disk full")
        // Not before 2 + 5.
        #expect(try jobs.claim(worker: "w", now: 6, lease: 10, maxAttempts: 2).job == nil)
        let again = try #require(try jobs.claim(worker: "w", now: 7, lease: 10, maxAttempts: 2).job)
        #expect(again.attempts == 2)
        #expect(try jobs.fail(mapID: "m", worker: "w", error: "disk full", now: 8, retryAfter: 5, maxAttempts: 2))
        #expect(try jobs.job(mapID: "m")?.state == .failed)
        #expect(try jobs.claim(worker: "w", now: 100, lease: 10, maxAttempts: 2).job == nil)

        // A job whose workers keep dying is abandoned after its attempts, reported once.
        try jobs.enqueue(mapID: "d", accountID: "a", now: 200)
        _ = try jobs.claim(worker: "w1", now: 201, lease: 10, maxAttempts: 2)
        _ = try jobs.claim(worker: "w2", now: 212, lease: 10, maxAttempts: 2)
        let last = try jobs.claim(worker: "w3", now: 223, lease: 10, maxAttempts: 2)
        #expect(last.job == nil)
        #expect(last.abandoned.map(\.mapID) == ["d"])
        let lost = try jobs.job(mapID: "d")
        #expect(lost?.state == .failed && lost?.error == "the build stopped 2 times (worker lost)")
        #expect(try jobs.claim(worker: "w3", now: 300, lease: 10, maxAttempts: 2).abandoned.isEmpty)
        // A cancelled (deleted) map's running build cannot complete.
        try jobs.enqueue(mapID: "c", accountID: "a", now: 400)
        _ = try jobs.claim(worker: "w", now: 401, lease: 10, maxAttempts: 2)
        try jobs.cancel(mapID: "c")
        #expect(try !jobs.complete(mapID: "c", worker: "w"))
        #expect(try jobs.job(mapID: "c") == nil)
    }

    /// Concurrent claimers (threads on separate connections) never share a job.
    @Test(arguments: Kind.testable)
    func concurrentClaimsHandOutEachJobOnce(kind: Kind) throws {
        let (jobs, cleanup) = try Self.make(kind, connections: 4)
        defer { cleanup() }
        for k in 0..<40 { try jobs.enqueue(mapID: "m\(k)", accountID: "a\(k % 3)", now: Double(k)) }
        let claimed = Mutex<[String]>([])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { w in
            while true {
                do {
                    guard let job = try jobs.claim(worker: "w\(w)", now: 1000, lease: 60, maxAttempts: 3).job else {
                        return
                    }
                    claimed.withLock { $0.append(job.mapID) }
                    guard try jobs.complete(mapID: job.mapID, worker: "w\(w)") else {
                        failures.withLock { $0.append("lost \(job.mapID)") }
                        return
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                    return
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let ids = claimed.withLock { $0 }
        #expect(ids.count == 40)
        #expect(Set(ids).count == 40)
    }
}
