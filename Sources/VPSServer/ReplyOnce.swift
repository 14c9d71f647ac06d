import Synchronization

/// Calls a reply exactly once, whichever of the work and its watchdog comes first.
final class ReplyOnce: Sendable {
    private let reply: Mutex<(@Sendable (HTTPResponse, VPSService.Context?) -> Void)?>

    init(_ reply: @escaping @Sendable (HTTPResponse, VPSService.Context?) -> Void) { self.reply = Mutex(reply) }

    func callAsFunction(_ response: HTTPResponse, _ context: VPSService.Context?) {
        let r = reply.withLock { r in
            defer { r = nil }
            return r
        }
        r?(response, context)
    }

    var isPending: Bool { reply.withLock { $0 != nil } }
}
