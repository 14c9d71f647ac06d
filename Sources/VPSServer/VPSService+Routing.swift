import Foundation
import Synchronization
import VPSGeometry
import VPSProtocol

/// The router: a canonical target, the route table (`APIRoutes`), the query string; then each
/// route's executor and handler.
extension VPSService {
    struct Rejection: Error {
        var response: HTTPResponse
        var metric: String
        var client = "-"
    }

    /// Where a route's handler runs.
    enum Executor {
        /// `held`: the console's event stream, answered when an event arrives (`holdStream`).
        case inline, io, engine, held
    }

    static func executor(_ route: APIRoute) -> Executor {
        switch route {
        case APIRoutes.healthz, APIRoutes.health, APIRoutes.metrics, APIRoutes.openAPI: return .inline
        case APIRoutes.queryForm, APIRoutes.queryJSON, APIRoutes.multiImageQuery, APIRoutes.objectQuery: return .engine
        case APIRoutes.consolePage, APIRoutes.consoleAsset: return .inline
        case APIRoutes.consoleQueryStream: return .held
        default: return .io
        }
    }

    /// The router: canonical target, route table, query string.
    func route(_ request: HTTPRequest) -> Result<Context, Rejection> {
        if let problem = RequestTarget.pathProblem(request.path) {
            return .failure(
                Rejection(response: Self.error(APIError(.badRequest, "Bad path: \(problem)")), metric: "bad-path"))
        }
        if request.method == "OPTIONS" {
            let allowed = APIRoutes.allowedMethods(path: request.path)
            guard !allowed.isEmpty else {
                return .failure(Rejection(response: Self.unknownRoute(request), metric: "unknown"))
            }
            return .failure(
                Rejection(
                    response: HTTPResponse(status: 204, headers: [("Allow", allowed.joined(separator: ", "))]),
                    metric: "options"))
        }
        switch APIRoutes.resolve(method: request.method, path: request.path) {
        case .notFound:
            return .failure(Rejection(response: Self.unknownRoute(request), metric: "unknown"))
        case .methodNotAllowed(let allowed):
            var r = Self.error(
                APIError(.methodNotAllowed, "\(request.method) is not allowed on \(request.path)"))
            r.headers.append(("Allow", allowed.joined(separator: ", ")))
            return .failure(Rejection(response: r, metric: "method-not-allowed"))
        case .route(let route, let parameters):
            var query = request.query
            if let raw = request.rawQuery {
                do { query = try RequestTarget.query(raw) } catch {
                    return .failure(Rejection(response: Self.error(error), metric: route.metric))
                }
            }
            return .success(Context(request: request, route: route, parameters: parameters, query: query))
        }
    }

    /// Runs a handler, turning errors into JSON answers.
    func answer(_ context: Context) -> HTTPResponse {
        var c = context
        do {
            if c.route.access.needsBearer { c.caller = try authenticate(c.request) }
            return try Self.handler(c.route)(self)(c)
        } catch {
            return Self.error(error)
        }
    }

    /// The handler of each route.
    static func handler(_ route: APIRoute) -> (VPSService) -> (Context) throws(APIError) -> HTTPResponse {
        switch route {
        case APIRoutes.healthz, APIRoutes.health:
            return { s in { _ in .json(HealthResponse(version: s.config.version)) } }
        case APIRoutes.metrics: return { s in { _ in s.metricsResponse() } }
        case APIRoutes.openAPI: return { _ in { _ in OpenAPI.response } }
        case APIRoutes.token: return { s in { c throws(APIError) in try s.token(c) } }
        case APIRoutes.download: return { s in { c throws(APIError) in try s.download(c) } }
        case APIRoutes.queryForm: return { s in { c throws(APIError) in try s.queryForm(c) } }
        case APIRoutes.queryJSON: return { s in { c throws(APIError) in try s.queryJSON(c) } }
        case APIRoutes.multiImageQuery: return { s in { c throws(APIError) in try s.multiImageQuery(c) } }
        case APIRoutes.objectQuery: return { s in { c throws(APIError) in try s.objectQuery(c) } }
        case APIRoutes.upload: return { s in { c throws(APIError) in try s.upload(c) } }
        case APIRoutes.uploadStart: return { s in { c throws(APIError) in try s.startUpload(c) } }
        case APIRoutes.uploadStatus: return { s in { c throws(APIError) in try s.uploadStatus(c) } }
        case APIRoutes.uploadFiles: return { s in { c throws(APIError) in try s.uploadFiles(c) } }
        case APIRoutes.uploadComplete: return { s in { c throws(APIError) in try s.completeUpload(c) } }
        case APIRoutes.mapQuality: return { s in { c throws(APIError) in try s.mapQuality(c) } }
        case APIRoutes.mapList: return { s in { c throws(APIError) in try s.listMaps(c) } }
        case APIRoutes.mapDetails: return { s in { c throws(APIError) in try s.mapDetails(c) } }
        case APIRoutes.mapDelete: return { s in { c throws(APIError) in try s.deleteMap(c) } }
        case APIRoutes.mapSetDetails: return { s in { c throws(APIError) in try s.mapSetDetails(c) } }
        case APIRoutes.objectDetails: return { s in { c throws(APIError) in try s.objectDetails(c) } }
        case APIRoutes.fileLink: return { s in { c throws(APIError) in try s.fileLink(c) } }
        case APIRoutes.planDetails: return { s in { c throws(APIError) in try s.planDetails(c) } }
        default:
            if let h = consoleHandler(route) { return h }
            return { _ in { c throws(APIError) in throw APIError(.badRequest, "Unknown route \(c.route)") } }
        }
    }
}
