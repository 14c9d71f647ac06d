import Foundation
import Synchronization
import VPSGeometry
import VPSProtocol

/// Admission middleware: body size, credentials, throttles and budgets, judged from the headers
/// before any body byte is read.
extension VPSService {
    /// The client's address: the peer's, or the `X-Real-IP` (an IPv4 or IPv6 address) set by a
    /// trusted proxy (`ServerConfig.trustedProxies`).
    func clientAddress(_ head: HTTPRequest) -> String {
        guard config.trustedProxies.contains(head.clientAddress),
            let real = head.header("X-Real-IP")?.trimmingCharacters(in: .whitespaces), Self.isIPAddress(real)
        else { return head.clientAddress }
        return real
    }

    /// Whether a string is a literal IPv4 or IPv6 address.
    static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    /// Admission: the route, then body size, credentials and budgets, before any body byte is read.
    func preflight(_ head: HTTPRequest) -> Result<(APIRoute, Int, Int64), Rejection> {
        let context: Context
        switch route(head) {
        case .success(let c): context = c
        case .failure(let r): return .failure(r)
        }
        let route = context.route
        func reject(_ e: APIError, client: String = "-") -> Result<(APIRoute, Int, Int64), Rejection> {
            .failure(Rejection(response: Self.error(e), metric: route.metric, client: client))
        }
        // Bodies have a declared length: chunked bodies could claim any size chunk by chunk.
        if head.header("Transfer-Encoding") != nil {
            var r = Self.error(
                APIError(.badRequest, "Request bodies need a Content-Length (chunked bodies are not accepted)"))
            r.status = 411
            return .failure(Rejection(response: r, metric: route.metric))
        }
        var declared = head.body.count
        if let text = head.header("Content-Length") {
            guard let n = Int(text.trimmingCharacters(in: .whitespaces)), n >= 0 else {
                return reject(APIError(.badRequest, "Content-Length must be a non-negative integer"))
            }
            declared = max(declared, n)
        }
        guard declared <= route.maxBodyBytes else {
            return reject(
                APIError(
                    .payloadTooLarge,
                    "Request body of \(declared) bytes exceeds the limit of \(route.maxBodyBytes) bytes for \(route.path)"
                ))
        }
        let address = clientAddress(head)
        var keys = ["address:\(address)"]
        let now = clock.now()
        var decision = Admitted()
        switch route.access {
        case .open, .signedLink:
            break
        case .credentials:
            if let wait = tokenThrottle.admitAddress(address, now: now) {
                metrics.count("vps_token_throttled_total")
                decision.tarpit = wait
            }
        case .bearer(let scope):
            let caller: Caller
            do { caller = try authenticate(head) } catch { return reject(error) }
            let client = caller.claims.sub
            if let scope, !caller.claims.has(scope: scope) {
                return reject(APIError(.forbidden, "Token lacks the '\(scope)' scope"), client: client)
            }
            if let limiter, let wait = limiter.take(client, now: now) {
                return .failure(
                    Rejection(
                        response: Self.rateLimited(wait, "Too many requests; retry in \(wait) s"), metric: route.metric,
                        client: client))
            }
            keys.append("client:\(client)")
        }
        guard let ticket = bodies.reserve(declared, keys: keys) else {
            metrics.count("vps_rejected_body_budget_total")
            return .failure(
                Rejection(
                    response: Self.busy("Too many request bodies are being received; retry shortly"),
                    metric: route.metric))
        }
        // Engine routes hold a slot from admission on: with every worker busy and the queue full,
        // the next query is refused before its body is read.
        decision.engine = Self.executor(route) == .engine
        let slots = config.engineWorkers + config.engineQueue
        let fits = admitted.withLock { a -> Bool in
            if decision.engine, a.values.filter(\.engine).count >= slots { return false }
            a[ticket] = decision
            return true
        }
        guard fits else {
            bodies.release(ticket)
            metrics.count("vps_rejected_busy_total")
            return .failure(
                Rejection(
                    response: Self.busy("Every localization worker is busy; retry shortly"), metric: route.metric))
        }
        return .success((route, declared, ticket))
    }
}
