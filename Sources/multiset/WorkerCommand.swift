import Dispatch
import Foundation
import MultiSetCommandLine
import Synchronization
import VPSFeatures
import VPSServer

/// `multiset worker`: builds the maps of a cluster's uploads (docs/DEPLOY.md).
enum WorkerCommand {
    /// The options of this command that take no value.
    static let switches: Set<String> = ["once"]

    static let usage = """
        usage: multiset worker --postgres CONNINFO [--work DIR] [--name NAME] [--lease SECONDS]
                               [--max-attempts N] [--poll SECONDS] [--once]

        Builds the maps uploaded to the servers of a cluster (`multiset serve --postgres`): claims the
        oldest queued build from the PostgreSQL database CONNINFO (a libpq connection string, e.g.
        "host=/run/postgresql dbname=multiset", or a postgresql:// URL), builds it in DIR (default
        ./.multiset-worker, emptied after each build), stores the map for every server and marks it active.
        Run as many workers as you like, on any machines: each build is claimed by one worker at a time,
        under a lease of --lease seconds (default 60) that the worker renews while it builds. When a
        worker dies its build is taken over by another once the lease lapses, at most --max-attempts
        times in all (default 3). --name names the worker in the job table (default host:pid); --poll is
        how often an idle worker looks for work (default 1 s); --once builds at most one map and exits.
        Stops on SIGINT/SIGTERM after the build it is running (or at once, when idle).
        """

    static func run(_ args: inout Arguments) throws -> Int32 {
        if args.flag("help") {
            print(usage)
            return 0
        }
        let stopSignals = StopSignals.block()
        guard let conninfo = args.string("postgres") else { throw UsageError("worker needs --postgres\n\(usage)") }
        let work = args.string("work") ?? ".multiset-worker"
        let host = ProcessInfo.processInfo.hostName
        let name = args.string("name") ?? "\(host):\(getpid())"
        let lease = try args.double("lease", default: 60)
        let attempts = try args.int("max-attempts", default: 3)
        let poll = try args.double("poll", default: 1)
        let once = args.flag("once")
        try args.rejectUnknown()
        guard lease >= 3, lease <= 3600 else { throw UsageError("--lease takes 3…3600 seconds") }
        guard attempts >= 1 else { throw UsageError("--max-attempts takes a positive integer") }
        guard poll > 0, poll <= 60 else { throw UsageError("--poll takes seconds in (0, 60]") }

        umask(0o077)
        OpenCVRuntime.threadCount = 1
        let cluster = try PostgresCluster(conninfo: conninfo, connections: 2)
        var settings = BuildWorker.Settings(
            name: name, workDirectory: URL(fileURLWithPath: work, isDirectory: true).standardizedFileURL)
        settings.lease = lease
        settings.maxAttempts = attempts
        try FileManager.default.createDirectory(
            at: settings.workDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let say: @Sendable (String) -> Void = { line in
            FileHandle.standardOutput.write(Data("multiset worker: \(line)\n".utf8))
        }
        let worker = try BuildWorker(cluster: cluster, settings: settings, log: say)

        let stopping = Atomic<Bool>(false)
        let wake = DispatchSemaphore(value: 0)
        stopSignals.wait {
            stopping.store(true, ordering: .relaxed)
            wake.signal()
        }
        say("\(name) waiting for builds (lease \(Int(lease)) s)")
        while !stopping.load(ordering: .relaxed) {
            let outcome: BuildWorker.Outcome
            do { outcome = try worker.runOnce() } catch {
                say("database error: \(error); retrying in \(Int(poll.rounded(.up))) s")
                _ = wake.wait(timeout: .now() + poll)
                continue
            }
            switch outcome {
            case .idle:
                if once { break }
                _ = wake.wait(timeout: .now() + poll)
                continue
            case .settled(let code, let status, let attempt):
                say("settled \(code): \(status.rawValue) (attempt \(attempt))")
            case .dropped(let code, let attempt):
                say("dropped \(code) (attempt \(attempt)): its lease was taken over or the map deleted")
            case .retry(let code, let attempt, let error):
                say("attempt \(attempt) of \(code) failed, queued again: \(error)")
            }
            if once { break }
        }
        say("stopped")
        return 0
    }
}
