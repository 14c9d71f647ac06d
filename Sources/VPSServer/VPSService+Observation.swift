import Foundation
import Synchronization
import VPSGeometry
import VPSProtocol

/// Middleware around every answer: CORS headers, metrics and the log line.
extension VPSService {
    /// CORS headers for configured origins only (SPEC §17.1); a preflight also lists methods and headers.
    func withCORS(_ response: HTTPResponse, _ request: HTTPRequest, preflight: Bool) -> HTTPResponse {
        guard let origin = request.header("Origin"),
            config.corsOrigins.contains(origin) || config.corsOrigins.contains("*")
        else { return response }
        var r = response
        r.headers.append(("Access-Control-Allow-Origin", origin))
        r.headers.append(("Vary", "Origin"))
        if preflight {
            let allowed = APIRoutes.allowedMethods(path: request.path)
            r.headers.append(("Access-Control-Allow-Methods", allowed.joined(separator: ", ")))
            r.headers.append(
                ("Access-Control-Allow-Headers", "Authorization, Content-Type, Username, Password, X-MultiSet-Map"))
            r.headers.append(("Access-Control-Max-Age", "600"))
        }
        return r
    }

    /// Metrics and the log line of one answered request.
    func record(_ request: HTTPRequest, _ response: HTTPResponse, route: String, client: String, since: UInt64) {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - since) / 1e9
        let code = response.status >= 400 ? response.errorCode ?? Self.errorCode(response) : nil
        metrics.record(route: route, status: response.status, seconds: seconds, errorCode: code)
        log(
            RequestLog.line(
                timestamp: RequestLog.timestamp(clock.now()), method: request.method, path: request.path,
                status: response.status, milliseconds: Int(seconds * 1000), client: client))
    }
}
