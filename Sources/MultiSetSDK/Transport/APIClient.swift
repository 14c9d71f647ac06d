import Foundation
import VPSProtocol

/// The SDK's HTTP client over the injected transport (SPEC §7.2–7.3): bearer tokens with renewal
/// ahead of expiry, one shared renewal for concurrent callers, one renewal and retry on 401, and
/// timeouts enforced on the injected scheduler (so tests drive them on virtual time).
final class APIClient: @unchecked Sendable {
    typealias TokenCompletion = @Sendable (Result<String, TokenFailure>) -> Void

    /// Why no token could be had.
    enum TokenFailure: Error, Equatable {
        /// 401/403 from the token endpoint, or an unparsable answer: authentication is lost.
        case rejected(String)
        /// The token endpoint could not be reached or answered 5xx.
        case unavailable(MultiSetError, authMessage: String)
    }

    let baseURL: String
    private let clientId: String
    private let clientSecret: String
    private let transport: any HTTPTransport
    private let scheduler: any SDKScheduler
    private let clock: any SDKClock
    private let logger: SDKLogger

    private let lock = NSLock()
    private var token: String?
    private var expiry: TimeInterval?
    private var lifetime: TimeInterval?
    private var usedWithoutExpiry = false
    private var waiters: [TokenCompletion] = []
    private var renewing = false

    /// Number of token requests sent (for tests and logs).
    private(set) var tokenRequestCount = 0

    init(
        baseURL: String, clientId: String, clientSecret: String, transport: any HTTPTransport,
        scheduler: any SDKScheduler, clock: any SDKClock, logger: SDKLogger
    ) {
        self.baseURL = baseURL
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.transport = transport
        self.scheduler = scheduler
        self.clock = clock
        self.logger = logger
    }

    /// The bearer token in force, if any.
    var currentToken: String? { lock.withLock { token } }

    /// Drops the token, so the next request authenticates again.
    func invalidate() {
        lock.withLock {
            token = nil
            expiry = nil
        }
    }

    // MARK: Tokens

    /// A token good for the margin of SPEC §7.2: renewed when less than max(60 s, 20 % of its
    /// lifetime) remains, or when it has no known expiry and was used before. Concurrent callers share
    /// one request.
    func freshToken(force: Bool = false, _ completion: @escaping TokenCompletion) {
        enum Step {
            case serve(String)
            case wait
            case start
        }
        let step: Step = lock.withLock {
            if !force && !renewing, let t = token, isFresh() {
                if expiry == nil { usedWithoutExpiry = true }
                return .serve(t)
            }
            waiters.append(completion)
            if renewing { return .wait }
            renewing = true
            return .start
        }
        switch step {
        case .serve(let t): completion(.success(t))
        case .wait: break
        case .start: requestToken()
        }
    }

    private func isFresh() -> Bool {
        guard token != nil else { return false }
        guard let expiry, let lifetime else { return !usedWithoutExpiry }
        let margin = max(60, 0.2 * lifetime)
        return expiry - clock.now() > margin
    }

    private func requestToken() {
        guard let url = URL(string: baseURL + APIRoutes.token.sdkPath) else {
            finishRenewal(.failure(.rejected(Messages.authFailed("invalid baseURL"))))
            return
        }
        let basic = Data("\(clientId):\(clientSecret)".utf8).base64EncodedString()
        let request = HTTPRequest(
            method: "POST", url: url, headers: ["Authorization": "Basic \(basic)", "Accept": "application/json"],
            timeout: RequestTimeout.resource)
        lock.withLock { tokenRequestCount += 1 }
        perform(request, bodySent: {}) { [weak self] result in
            guard let self else { return }
            switch result {
            case .failure(let error):
                let e = Messages.transportError(error)
                self.finishRenewal(.failure(.unavailable(e, authMessage: Messages.authFailed(e.message))))
            case .success(let response) where response.status == 200:
                guard let parsed = Self.parseToken(response.body, now: self.clock.now(), wallNow: self.clock.wallDate())
                else {
                    self.finishRenewal(.failure(.rejected(Messages.authUnparsable)))
                    return
                }
                self.lock.withLock {
                    self.token = parsed.token
                    self.expiry = parsed.expiry
                    self.lifetime = parsed.lifetime
                    self.usedWithoutExpiry = parsed.expiry == nil
                }
                self.finishRenewal(.success(parsed.token))
            case .success(let response):
                let detail = Messages.serverMessage(response) ?? "HTTP \(response.status)"
                let message = Messages.authFailed(detail)
                let s = response.status
                if s == 408 || s == 429 || s >= 500 {
                    self.finishRenewal(.failure(.unavailable(Messages.httpError(response), authMessage: message)))
                } else {
                    self.finishRenewal(.failure(.rejected(message)))
                }
            }
        }
    }

    private func finishRenewal(_ result: Result<String, TokenFailure>) {
        let served: [TokenCompletion] = lock.withLock {
            renewing = false
            if case .failure(.rejected) = result {
                token = nil
                expiry = nil
            }
            let w = waiters
            waiters.removeAll()
            return w
        }
        served.forEach { $0(result) }
    }

    /// Parses a token answer: expiry from `expiresOn`, else the JWT `exp`, else none.
    static func parseToken(
        _ body: Data, now: TimeInterval, wallNow: Date
    ) -> (
        token: String, expiry: TimeInterval?, lifetime: TimeInterval?
    )? {
        guard let json = JSONValue.parse(body), let token = json["token"]?.string, !token.isEmpty else { return nil }
        var expiresAt: Date?
        if let text = json["expiresOn"]?.string { expiresAt = parseISODate(text) }
        var issuedAt: Date?
        if let claims = jwtClaims(token) {
            if expiresAt == nil, let exp = claims["exp"]?.double { expiresAt = Date(timeIntervalSince1970: exp) }
            if let iat = claims["iat"]?.double { issuedAt = Date(timeIntervalSince1970: iat) }
        }
        guard let expiresAt else { return (token, nil, nil) }
        let remaining = expiresAt.timeIntervalSince(wallNow)
        var lifetime = remaining
        if let issuedAt { lifetime = max(remaining, expiresAt.timeIntervalSince(issuedAt)) }
        return (token, now + remaining, max(lifetime, 1))
    }

    static func parseISODate(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: text)
    }

    static func jwtClaims(_ token: String) -> JSONValue? {
        let parts = token.split(separator: ".")
        guard parts.count >= 2 else { return nil }
        var b64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b64.count % 4 != 0 { b64 += "=" }
        guard let data = Data(base64Encoded: b64) else { return nil }
        return JSONValue.parse(data)
    }

    // MARK: Requests

    /// Sends an authenticated request: fresh token first, then on 401 one renewal and one retry.
    /// `headers` go with every attempt (beside `Authorization`, `Accept` and `Content-Type`).
    @discardableResult
    func send(
        method: String, path: String, body: Data = Data(), contentType: String? = nil,
        headers extra: [String: String] = [:], timeout: TimeInterval, bodySent: @escaping @Sendable () -> Void,
        completion: @escaping @Sendable (APIOutcome) -> Void
    ) -> RequestHandle {
        let handle = RequestHandle()
        guard let url = URL(string: path.hasPrefix("http") ? path : baseURL + path) else {
            completion(.transportFailure(.network("bad URL \(path)")))
            return handle
        }
        attempt(
            method: method, url: url, body: body, contentType: contentType, headers: extra, timeout: timeout,
            retried: false, handle: handle, bodySent: bodySent,
            completion: { outcome in if !handle.isCancelled { completion(outcome) } })
        return handle
    }

    private func attempt(
        method: String, url: URL, body: Data, contentType: String?, headers extra: [String: String],
        timeout: TimeInterval, retried: Bool,
        handle: RequestHandle, bodySent: @escaping @Sendable () -> Void,
        completion: @escaping @Sendable (APIOutcome) -> Void
    ) {
        freshToken(force: retried) { [weak self] tokenResult in
            guard let self else { return }
            switch tokenResult {
            case .failure(.rejected(let message)):
                completion(.authenticationLost(message))
            case .failure(.unavailable(let error, _)):
                completion(.transportFailure(error))
            case .success(let token):
                var headers = extra.merging(["Authorization": "Bearer \(token)", "Accept": "application/json"]) {
                    $1
                }
                if let contentType { headers["Content-Type"] = contentType }
                let request = HTTPRequest(method: method, url: url, headers: headers, body: body, timeout: timeout)
                guard !handle.isCancelled else { return }
                self.perform(request, handle: handle, bodySent: bodySent) { result in
                    switch result {
                    case .failure(let error):
                        completion(.transportFailure(Messages.transportError(error)))
                    case .success(let response) where response.status == 401:
                        if retried {
                            self.invalidate()
                            let detail = Messages.serverMessage(response) ?? "HTTP 401"
                            completion(.authenticationLost(Messages.authFailed(detail)))
                        } else {
                            self.logger.log("HTTP 401 on \(url.path); renewing the token and retrying once")
                            self.attempt(
                                method: method, url: url, body: body, contentType: contentType, headers: extra,
                                timeout: timeout,
                                retried: true, handle: handle, bodySent: {}, completion: completion)
                        }
                    case .success(let response):
                        completion(.response(response))
                    }
                }
            }
        }
    }

    /// Downloads an absolute URL without a bearer (signed file links).
    func download(_ url: URL, completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void) {
        perform(HTTPRequest(method: "GET", url: url, timeout: RequestTimeout.download), bodySent: {}, completion)
    }

    /// One transport call with its timeout on the injected scheduler; exactly one completion.
    private func perform(
        _ request: HTTPRequest, handle: RequestHandle? = nil, bodySent: @escaping @Sendable () -> Void,
        _ completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) {
        let once = OnceFlag()
        let taskBox = TaskBox()
        handle?.onCancel {
            guard once.claim() else { return }
            taskBox.cancel()
        }
        let timer = scheduler.schedule(after: request.timeout) {
            guard once.claim() else { return }
            taskBox.cancel()
            completion(.failure(.timedOut))
        }
        handle?.onCancel { timer.cancel() }
        let task = transport.send(
            request,
            bodySent: { if !once.isClaimed { bodySent() } },
            completion: { result in
                guard once.claim() else { return }
                timer.cancel()
                completion(result)
            })
        taskBox.set(task)
    }
}

/// Cancels one logical request (its 401 retry included): the transport task and its timeout timer
/// are cancelled and no completion runs afterwards.
final class RequestHandle: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    private var cancellers: [@Sendable () -> Void] = []

    var isCancelled: Bool { lock.withLock { cancelled } }

    /// Registers work to run on cancellation (at once if already cancelled).
    func onCancel(_ body: @escaping @Sendable () -> Void) {
        let now = lock.withLock {
            if cancelled { return true }
            cancellers.append(body)
            return false
        }
        if now { body() }
    }

    func cancel() {
        let work: [@Sendable () -> Void] = lock.withLock {
            if cancelled { return [] }
            cancelled = true
            defer { cancellers.removeAll() }
            return cancellers
        }
        work.forEach { $0() }
    }
}

/// A flag that can be claimed once, from any thread.
final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var claimed = false

    func claim() -> Bool {
        lock.withLock {
            if claimed { return false }
            claimed = true
            return true
        }
    }

    var isClaimed: Bool { lock.withLock { claimed } }
}

private final class TaskBox: @unchecked Sendable {
    private let lock = NSLock()
    private var task: (any TransportTask)?
    private var cancelled = false

    func set(_ t: any TransportTask) {
        let cancelNow = lock.withLock {
            task = t
            return cancelled
        }
        if cancelNow { t.cancel() }
    }

    func cancel() {
        let t = lock.withLock {
            cancelled = true
            return task
        }
        t?.cancel()
    }
}
