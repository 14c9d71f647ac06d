import Foundation
import Synchronization
import VPSGeometry
import VPSProtocol

/// Error and status answers shared by every route.
extension VPSService {
    func metricsResponse() -> HTTPResponse {
        HTTPResponse(
            status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")], body: Array(metrics.render().utf8))
    }

    static func unknownRoute(_ r: HTTPRequest) -> HTTPResponse {
        error(APIError(.badRequest, "Unknown route \(r.method) \(r.path)"))
    }

    /// 429 `RATE_LIMITED` with `Retry-After`.
    static func rateLimited(_ wait: Int, _ message: String) -> HTTPResponse {
        var r = error(APIError(.rateLimited, message))
        r.headers.append(("Retry-After", String(wait)))
        return r
    }

    /// 503 with `Retry-After: 1` (a full queue or budget: retrying soon is the right move).
    static func busy(_ message: String) -> HTTPResponse {
        error(APIError(.serverBusy, message))
    }

    static func errorCode(_ r: HTTPResponse) -> String? {
        (try? JSONDecoder().decode(APIError.self, from: Data(r.body)))?.code
    }

    static func error(_ e: APIError) -> HTTPResponse {
        var r = HTTPResponse.json(e, status: e.httpStatus)
        r.errorCode = e.code
        if e.knownCode == .unauthorized || e.knownCode == .tokenExpired {
            r.headers.append(("WWW-Authenticate", "Bearer"))
        }
        // Every 503 is worth retrying soon (a busy pool, a timed-out query, an unavailable store).
        if r.status == 503 { r.headers.append(("Retry-After", "1")) }
        return r
    }
}
