import Dispatch
import Foundation

/// SIGINT and SIGTERM as a request to stop, never lost and never fatal.
///
/// `block()` blocks both signals in the calling thread, so every thread started after it inherits
/// the mask (libdispatch's workers block them already); a signal sent to the process then stays
/// pending until `wait(_:)`'s thread takes it with `sigwait`. Call `block()` first thing in a command,
/// before it starts any thread: a signal source installed later leaves a window in which the signal
/// is ignored and lost (`multiset serve` kept running after a SIGTERM sent the moment it announced its
/// URL).
struct StopSignals: Sendable {
    private let set: sigset_t

    /// Blocks SIGINT and SIGTERM in the calling thread and in the threads it starts from now on.
    static func block() -> StopSignals {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        return StopSignals(set: set)
    }

    /// Calls `handler` on a thread of its own for the first SIGINT or SIGTERM (and for each later one).
    func wait(_ handler: @escaping @Sendable () -> Void) {
        let set = self.set
        let thread = Thread {
            var mask = set
            var signal: Int32 = 0
            while sigwait(&mask, &signal) == 0 { handler() }
        }
        thread.name = "stop-signals"
        thread.start()
    }
}
