import Foundation

/// A fixed set of worker threads with a bounded queue: `submit` never blocks, it refuses work when
/// the queue is full (the caller answers 503 with `Retry-After` at once instead of piling up).
///
/// Workers can run at a lower scheduling priority (`niceness`), so threads that answer health checks
/// and admit requests stay responsive while every core computes.
public final class WorkerPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [@Sendable () -> Void] = []
    private var head = 0
    private var running = 0
    private var stopping = false
    private var started = 0
    private let name: String
    private let niceness: Int32
    /// Jobs that may wait beyond the ones running.
    public let capacity: Int
    /// Worker threads.
    public let workers: Int

    /// A pool of `workers` threads (at least 1, started on first use) with room for `capacity`
    /// waiting jobs.
    ///
    /// - Parameters:
    ///   - niceness: added to the workers' scheduling priority (Linux `setpriority`; 0 keeps it).
    public init(name: String, workers: Int, capacity: Int, niceness: Int32 = 0) {
        self.workers = max(1, workers)
        self.capacity = max(0, capacity)
        self.name = name
        self.niceness = niceness
    }

    /// Starts one more worker (with the lock held).
    private func startWorker() {
        let niceness = self.niceness
        let thread = Thread {
            #if os(Linux)
            if niceness != 0 {
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
            }
            #endif
            self.work()
        }
        thread.name = "\(name)-\(started)"
        thread.stackSize = 8 << 20
        started += 1
        thread.start()
    }

    /// Queues a job; false (and the job is dropped) when `capacity` jobs already wait or the pool stops.
    @discardableResult
    public func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping, queue.count - head < capacity + max(0, workers - running) else { return false }
        queue.append(job)
        if started < workers && queue.count - head > started - running {
            startWorker()
        }
        condition.signal()
        return true
    }

    /// Jobs waiting and jobs running.
    public var load: (waiting: Int, running: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (queue.count - head, running)
    }

    /// Stops taking jobs; waiting jobs still run. Threads end when the queue is empty.
    public func shutdown() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while head == queue.count && !stopping { condition.wait() }
            if head == queue.count {
                condition.unlock()
                return
            }
            let job = queue[head]
            head += 1
            if head > 1024 && head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
            running += 1
            condition.unlock()
            job()
            condition.lock()
            running -= 1
            condition.unlock()
        }
    }
}
