import Foundation
import VPSProtocol

/// The operators' web console (docs/CONSOLE.md): its files, the caller's session, the account's
/// recent queries (a list and a server-sent event stream) and per-map usage. Every route behind a
/// token sees only the account the token names; the page itself holds no data.
extension VPSService {
    /// The handler of a console route (nil for other routes).
    static func consoleHandler(_ route: APIRoute) -> ((VPSService) -> (Context) throws(APIError) -> HTTPResponse)? {
        switch route {
        case APIRoutes.consolePage: return { _ in { _ in consoleFile("index.html") } }
        case APIRoutes.consoleAsset: return { _ in { c in consoleFile(c.parameters["asset"] ?? "") } }
        case APIRoutes.consoleSession: return { s in { c throws(APIError) in try s.consoleSession(c) } }
        case APIRoutes.consoleQueries: return { s in { c throws(APIError) in try s.consoleQueries(c) } }
        case APIRoutes.consoleUsage: return { s in { c throws(APIError) in try s.consoleUsage(c) } }
        case APIRoutes.consoleScene: return { s in { c throws(APIError) in try s.consoleScene(c) } }
        case APIRoutes.consolePoints: return { s in { c throws(APIError) in try s.consolePoints(c) } }
        case APIRoutes.consoleMesh: return { s in { c throws(APIError) in try s.consoleMesh(c) } }
        case APIRoutes.consoleKeyframeImage: return { s in { c throws(APIError) in try s.consoleKeyframeImage(c) } }
        case APIRoutes.consoleClients: return { s in { c throws(APIError) in try s.consoleClients(c) } }
        case APIRoutes.consoleClientCreate: return { s in { c throws(APIError) in try s.consoleCreateClient(c) } }
        case APIRoutes.consoleClientRevoke: return { s in { c throws(APIError) in try s.consoleRevokeClient(c) } }
        default: return nil
        }
    }

    /// The console's Content-Security-Policy: scripts, styles and connections from this origin only,
    /// images from it or from blobs the page made; no inline code, no frames, no forms, no plugins.
    static let consolePolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// Headers of every console file: the policy, no sniffing, no referrer, no framing.
    static let consoleHeaders: [(name: String, value: String)] = [
        ("Content-Security-Policy", consolePolicy), ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"), ("Cross-Origin-Opener-Policy", "same-origin"),
        ("Cache-Control", "no-cache"),
    ]

    /// A file of the console, or 404 for a name it does not have.
    static func consoleFile(_ name: String) -> HTTPResponse {
        guard let asset = ConsoleAssets.file(name) else {
            return error(APIError(.fileNotFound, "The console has no file \(name)"))
        }
        return HTTPResponse(
            status: 200, headers: [("Content-Type", asset.contentType)] + consoleHeaders, body: asset.bytes)
    }

    /// JSON for the console: never cached.
    static func consoleJSON<T: Encodable>(_ value: T, status: Int = 200) -> HTTPResponse {
        var r = HTTPResponse.json(value, status: status)
        r.headers.append(("Cache-Control", "no-store"))
        return r
    }

    struct Session: Codable {
        var clientId: String
        var clientName: String
        var accountId: String
        var accountName: String
        var scopes: [String]
        var expiresAt: String
    }

    func consoleSession(_ c: Context) throws(APIError) -> HTTPResponse {
        let caller = try caller(c)
        let client: ClientRecord?
        let account: AccountRecord?
        do {
            client = try store.client(id: caller.claims.sub)
            account = try store.account(id: caller.accountID)
        } catch { throw APIError(.internalError, "Storage error") }
        return Self.consoleJSON(
            Session(
                clientId: caller.claims.sub, clientName: client?.name ?? "", accountId: caller.accountID,
                accountName: account?.name ?? "", scopes: caller.claims.scope.split(separator: " ").map(String.init),
                expiresAt: Identifiers.timestamp(Double(caller.claims.exp))))
    }

    struct QueryList: Codable {
        var queries: [QueryLogEntry]
    }

    /// `GET /v1/console/queries?after=N`: the account's entries after sequence N, oldest first.
    func consoleQueries(_ c: Context) throws(APIError) -> HTTPResponse {
        let caller = try caller(c)
        let after = try Self.intParameter(c.query["after"], default: 0, range: 0...Int(Int32.max), name: "after")
        return Self.consoleJSON(QueryList(queries: queryLog.entries(accountID: caller.accountID, after: after)))
    }

    struct UsageList: Codable {
        /// Minutes since 1970 of the answer.
        var now: Int
        var maps: [QueryLog.Usage]
    }

    /// `GET /v1/console/usage`: per map (or map set) the account queried, queries and poses found per
    /// minute. Kept per account here rather than as `/metrics` labels: `/metrics` is open to anyone
    /// and map codes are not to be learnt from it.
    func consoleUsage(_ c: Context) throws(APIError) -> HTTPResponse {
        let caller = try caller(c)
        let now = clock.now()
        return Self.consoleJSON(
            UsageList(
                now: Int((now / 60).rounded(.down)), maps: queryLog.usage(accountID: caller.accountID, now: now)))
    }

    /// How long a stream request waits for an event before it is answered empty (the client asks again
    /// at once; below the 30 s idle timeout of connections).
    static let streamHoldSeconds = 15.0

    /// `GET /v1/console/queries/stream`: server-sent events (`text/event-stream`), one `query` event per
    /// log entry after `Last-Event-ID` (or `?after=`). The answer is sent as soon as there is at least
    /// one event, or empty after `streamHoldSeconds`; its `retry: 0` makes the client ask again at
    /// once, so a new query reaches the page within one round trip. (Each answer is complete: the
    /// HTTP shim sends whole bodies; the events and their ids are those of a continuous stream.)
    /// The request holds no worker while it waits.
    func holdStream(_ context: Context, _ once: ReplyOnce) {
        let accepted = ioPool.submit { [self] in
            let caller: Caller
            let after: Int
            do throws(APIError) {
                caller = try authenticate(context.request)
                let raw = context.request.header("Last-Event-ID") ?? context.query["after"]
                after = try Self.intParameter(
                    raw?.trimmingCharacters(in: .whitespaces), default: 0, range: 0...Int(Int32.max),
                    name: "Last-Event-ID")
            } catch {
                once(Self.error(error), context)
                return
            }
            queryLog.wait(accountID: caller.accountID, after: after, timeout: Self.streamHoldSeconds) { entries in
                once(Self.eventStream(entries), context)
            }
        }
        if !accepted {
            metrics.count("vps_rejected_busy_total")
            once(Self.busy("The server is busy; retry shortly"), context)
        }
    }

    /// The `text/event-stream` body of some entries.
    static func eventStream(_ entries: [QueryLogEntry]) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var text = "retry: 0\n"
        if entries.isEmpty { text += ": no new queries\n" }
        text += "\n"
        for e in entries {
            guard let data = try? encoder.encode(e) else { continue }
            text += "id: \(e.sequence)\nevent: query\ndata: \(String(decoding: data, as: UTF8.self))\n\n"
        }
        return HTTPResponse(
            status: 200,
            headers: [("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-store")],
            body: Array(text.utf8))
    }
}
