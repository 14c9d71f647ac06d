import Foundation

/// A throwaway PostgreSQL cluster for one test: `initdb` into a temporary directory, `pg_ctl start`
/// listening only on a Unix socket in that directory (no TCP port, nothing shared), `pg_ctl stop`
/// and removal at `stop()`. PostgreSQL refuses to run as root, so as root the cluster belongs to the
/// `postgres` system user (created by the Debian package) and its commands run through `runuser`.
///
/// Not installed: `available` is false and the suites that need it are disabled, unless
/// `VPS_REQUIRE_POSTGRES=1` (set by `make test-postgres`) makes that a failure instead.
final class PostgresTestCluster {
    /// The directory holding PostgreSQL's `initdb`, `pg_ctl` and `postgres` (newest version first).
    static let binaries: URL? = {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        for v in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            let bin = root.appendingPathComponent(v).appendingPathComponent("bin")
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
        }
        return nil
    }()

    static var isRoot: Bool { getuid() == 0 }

    /// Whether a cluster can be started here: the binaries exist and, as root, the `postgres` user
    /// and `runuser` do too.
    static var available: Bool {
        guard binaries != nil else { return false }
        guard isRoot else { return true }
        return getpwnam("postgres") != nil && FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser")
    }

    /// Required by the environment (`make test-postgres`): unavailability is then a failure.
    static var required: Bool { ProcessInfo.processInfo.environment["VPS_REQUIRE_POSTGRES"] == "1" }

    /// Run the PostgreSQL suites: available, or required (so that they fail loudly).
    static var shouldRun: Bool { available || required }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let directory: URL
    private var running = false

    /// The libpq connection string of the cluster's `postgres` database.
    var conninfo: String { "host=\(directory.path) port=5432 user=postgres dbname=postgres" }

    /// Creates and starts a cluster (about 2 s).
    init() throws {
        guard let bin = Self.binaries, Self.available else {
            throw Failure(description: "PostgreSQL is not installed (apt-get install postgresql; make test-postgres)")
        }
        // Short: the socket path (directory + "/.s.PGSQL.5432") must fit in 107 bytes.
        directory = URL(fileURLWithPath: "/tmp/vpspg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if Self.isRoot {
            guard let pw = getpwnam("postgres") else { throw Failure(description: "no postgres user") }
            guard chown(directory.path, pw.pointee.pw_uid, pw.pointee.pw_gid) == 0 else {
                throw Failure(description: "cannot chown \(directory.path)")
            }
        }
        let data = directory.appendingPathComponent("data").path
        try run(
            bin.appendingPathComponent("initdb").path,
            ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C"])
        let options = "-c listen_addresses='' -k \(directory.path) -c fsync=off -c max_connections=60"
        try run(
            bin.appendingPathComponent("pg_ctl").path,
            ["-D", data, "-o", options, "-l", directory.appendingPathComponent("log").path, "-w", "-t", "30", "start"])
        running = true
    }

    deinit { stop() }

    /// Stops the server (immediate mode) and removes its directory.
    func stop() {
        if running, let bin = Self.binaries {
            try? run(
                bin.appendingPathComponent("pg_ctl").path,
                ["-D", directory.appendingPathComponent("data").path, "-m", "immediate", "-w", "stop"])
            running = false
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs a PostgreSQL command (as the `postgres` user when we are root); throws with its output
    /// when it fails. Spawned directly and awaited with `waitpid`: Foundation's `Process` notices an
    /// exit only when every descendant has closed a descriptor it shares, and `pg_ctl start` leaves
    /// the server running.
    private func run(_ tool: String, _ arguments: [String]) throws {
        let argv = Self.isRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--", tool] + arguments : [tool] + arguments
        let outputPath = directory.appendingPathComponent("command-\(UUID().uuidString.prefix(8)).txt").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        guard spawned == 0 else { throw Failure(description: "cannot run \(argv[0]): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED && WEXITSTATUS == 0.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) failed (\(status)): \(text)")
        }
    }
}
