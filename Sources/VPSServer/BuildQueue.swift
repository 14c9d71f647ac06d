import Foundation

/// Background map builds, fair across accounts: each account has its own FIFO queue and the workers
/// take the accounts in turn (round robin), so one account's long build queue delays another
/// account's build by at most the builds already running. `cancel` drops a queued build or tells a
/// running one to discard its result (a deleted map).
final class BuildQueue: @unchecked Sendable {
    struct Job {
        var accountID: String
        var mapID: String
        var run: @Sendable (_ isCancelled: @Sendable () -> Bool) -> Void
    }

    private let condition = NSCondition()
    private var queues: [String: [Job]] = [:]
    private var turn: [String] = []
    private var running: [String: String] = [:]  // map id → account id
    private var cancelled: Set<String> = []
    private var stopping = false
    private var idle: Int
    private var started = 0
    private let workers: Int

    /// A queue run by `workers` threads (started on first use) at a lower scheduling priority.
    init(workers: Int) {
        self.workers = max(1, workers)
        idle = 0
    }

    /// Builds queued or running for an account.
    func count(accountID: String) -> Int {
        condition.lock()
        defer { condition.unlock() }
        return (queues[accountID]?.count ?? 0) + running.values.filter { $0 == accountID }.count
    }

    /// Queues a build; false when the queue is stopping.
    @discardableResult
    func enqueue(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping else { return false }
        if queues[job.accountID, default: []].isEmpty { turn.append(job.accountID) }
        queues[job.accountID, default: []].append(job)
        if idle == 0 && started < workers {
            started += 1
            let thread = Thread { self.work() }
            thread.name = "vps-build-\(started)"
            thread.stackSize = 16 << 20
            thread.start()
        }
        condition.signal()
        return true
    }

    /// Drops a queued build of `mapID`, or marks its running build cancelled.
    func cancel(mapID: String) {
        condition.lock()
        defer { condition.unlock() }
        for (account, jobs) in queues {
            queues[account] = jobs.filter { $0.mapID != mapID }
            if queues[account]!.isEmpty {
                queues[account] = nil
                turn.removeAll { $0 == account }
            }
        }
        if running[mapID] != nil { cancelled.insert(mapID) }
    }

    /// Waits until nothing is queued or running.
    func waitUntilIdle() {
        condition.lock()
        while !turn.isEmpty || !running.isEmpty { condition.wait() }
        condition.unlock()
    }

    /// Stops taking builds; queued ones are dropped (their staged uploads stay, to be built again at
    /// the next start), running ones finish.
    func shutdown() {
        condition.lock()
        stopping = true
        queues = [:]
        turn = []
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #endif
        while true {
            condition.lock()
            idle += 1
            while turn.isEmpty && !stopping { condition.wait() }
            idle -= 1
            guard !turn.isEmpty else {
                condition.unlock()
                return
            }
            let account = turn.removeFirst()
            let job = queues[account]!.removeFirst()
            if queues[account]!.isEmpty { queues[account] = nil } else { turn.append(account) }
            running[job.mapID] = account
            condition.unlock()
            let id = job.mapID
            job.run { [self] in
                condition.lock()
                defer { condition.unlock() }
                return cancelled.contains(id)
            }
            condition.lock()
            running[id] = nil
            cancelled.remove(id)
            condition.broadcast()
            condition.unlock()
        }
    }
}
