import Synchronization

/// Bytes of request bodies the server has agreed to buffer, reserved at admission from the declared
/// `Content-Length` and released when the request ends.
///
/// A reservation must fit the global cap and the caps of each of its keys (the client address, and
/// the client id for authenticated requests), so one address or one client cannot take the whole
/// budget. A request that does not fit is answered 503 with `Retry-After` before any byte is read.
public final class BodyBudget: Sendable {
    struct State {
        var total = 0
        var perKey: [String: Int] = [:]
        var tickets: [Int64: (bytes: Int, keys: [String])] = [:]
        var next: Int64 = 1
    }
    /// Bytes reservable in total.
    public let capacity: Int
    /// Bytes reservable per key.
    public let perKeyCapacity: Int
    private let state = Mutex(State())

    /// A budget of `capacity` bytes, at most `perKeyCapacity` per key.
    public init(capacity: Int, perKeyCapacity: Int) {
        self.capacity = capacity
        self.perKeyCapacity = perKeyCapacity
    }

    /// Reserves `bytes` for `keys`; the ticket to release, or nil when it does not fit.
    func reserve(_ bytes: Int, keys: [String]) -> Int64? {
        state.withLock { s in
            let b = max(0, bytes)
            guard s.total + b <= capacity, keys.allSatisfy({ s.perKey[$0, default: 0] + b <= perKeyCapacity })
            else { return nil }
            s.total += b
            for k in keys { s.perKey[k, default: 0] += b }
            let ticket = s.next
            s.next += 1
            s.tickets[ticket] = (b, keys)
            return ticket
        }
    }

    /// Releases a reservation (unknown tickets are ignored).
    func release(_ ticket: Int64) {
        state.withLock { s in
            guard let r = s.tickets.removeValue(forKey: ticket) else { return }
            s.total -= r.bytes
            for k in r.keys {
                let left = s.perKey[k, default: 0] - r.bytes
                s.perKey[k] = left > 0 ? left : nil
            }
        }
    }

    /// Bytes reserved now.
    public var reserved: Int { state.withLock { $0.total } }
}
