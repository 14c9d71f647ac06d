import Foundation

/// Thread-safe slots for results of `concurrentPerform`: each iteration stores its result under its
/// own index, so the results come out in index order whatever the threads' timing.
package final class ResultsBox<T>: @unchecked Sendable {
    private var slots: [Result<T, any Error>?]
    private let lock = NSLock()
    package init(count: Int) { slots = Array(repeating: nil, count: count) }
    package func set(_ i: Int, _ r: Result<T, any Error>) {
        lock.lock()
        slots[i] = r
        lock.unlock()
    }
    package func get(_ i: Int) -> Result<T, any Error>? {
        lock.lock()
        defer { lock.unlock() }
        return slots[i]
    }

    /// `body(0)`, …, `body(count − 1)` on the cores there are (`concurrentPerform`), returned in index
    /// order: for independent work whose result must not depend on the threads' timing.
    package static func concurrentMap(_ count: Int, _ body: @Sendable (Int) -> T) -> [T] {
        let box = ResultsBox(count: count)
        DispatchQueue.concurrentPerform(iterations: count) { box.set($0, .success(body($0))) }
        return (0..<count).map { i in
            guard case .success(let value)? = box.get(i) else { preconditionFailure("every slot is set") }
            return value
        }
    }
}
