/// One route of the REST API (SPEC §17): method, path template, who may call it, how large its body
/// may be and the name its requests are counted under.
///
/// `APIRoutes.all` is the one table the server dispatches from, `/v1/openapi.json` is generated from
/// and the SDK takes its request paths from.
public struct APIRoute: Sendable, Hashable, CustomStringConvertible {
    /// Who may call a route.
    public enum Access: Sendable, Hashable {
        /// Anyone (health, metrics, the OpenAPI document).
        case open
        /// Client credentials (`POST /v1/m2m/token`: Basic or Username/Password headers).
        case credentials
        /// A signed link (`GET /v1/files/download`).
        case signedLink
        /// A bearer token, with the scope when one is needed (`query`, `write`).
        case bearer(scope: String?)

        /// True when the route needs `Authorization: Bearer`.
        public var needsBearer: Bool {
            if case .bearer = self { return true }
            return false
        }
    }

    /// `GET`, `POST` or `DELETE`.
    public let method: String
    /// The path from the server root, `{name}` for a parameter segment (e.g. `/v1/vps/map/{key}`).
    public let path: String
    /// Who may call it.
    public let access: Access
    /// The largest request body accepted, bytes (larger declared bodies get 413 before any byte is read).
    public let maxBodyBytes: Int
    /// The `route` label of its metrics and log lines.
    public let metric: String
    /// One line for people (OpenAPI `summary`).
    public let summary: String

    /// Builds a route.
    public init(
        _ method: String, _ path: String, access: Access, maxBodyBytes: Int = APIRoutes.smallBodyBytes,
        metric: String, summary: String
    ) {
        self.method = method
        self.path = path
        self.access = access
        self.maxBodyBytes = maxBodyBytes
        self.metric = metric
        self.summary = summary
    }

    /// The path below the API root `/v1` (what the SDK appends to its `baseURL`, SPEC D9).
    public var sdkPath: String { path.hasPrefix("/v1/") ? String(path.dropFirst(3)) : path }

    /// The template's segments.
    public var segments: [Substring] { path.split(separator: "/") }

    public var description: String { "\(method) \(path)" }

    /// The parameter values of `pathSegments` when they fit the template (same length, equal
    /// literal segments), else nil.
    public func parameters(_ pathSegments: [Substring]) -> [String: String]? {
        let template = segments
        guard template.count == pathSegments.count else { return nil }
        var out: [String: String] = [:]
        for (t, s) in zip(template, pathSegments) {
            if t.hasPrefix("{"), t.hasSuffix("}") {
                guard !s.isEmpty else { return nil }
                out[String(t.dropFirst().dropLast())] = String(s)
            } else if t != s {
                return nil
            }
        }
        return out
    }
}

/// The route table of the REST API (SPEC §17): every route the server answers, in one place.
public enum APIRoutes {
    /// Body limit of routes whose body is ignored or absent.
    public static let smallBodyBytes = 64 << 10
    /// Body limit of query and upload routes (SPEC §17.1: 40 MB).
    public static let largeBodyBytes = 40 << 20

    public static let healthz = APIRoute(
        "GET", "/healthz", access: .open, metric: "health", summary: "Liveness and version (no bearer)")
    public static let health = APIRoute(
        "GET", "/v1/health", access: .open, metric: "health", summary: "Liveness and version (no bearer)")
    public static let metrics = APIRoute(
        "GET", "/metrics", access: .open, metric: "metrics", summary: "Prometheus text exposition")
    public static let openAPI = APIRoute(
        "GET", "/v1/openapi.json", access: .open, metric: "openapi", summary: "This document")
    public static let token = APIRoute(
        "POST", "/v1/m2m/token", access: .credentials, metric: "token",
        summary: "Client credentials to a bearer token (Basic or Username/Password headers)")
    public static let download = APIRoute(
        "GET", "/v1/files/download", access: .signedLink, metric: "download",
        summary: "Download a file through a signed link")
    public static let queryForm = APIRoute(
        "POST", "/v1/vps/map/query-form", access: .bearer(scope: "query"), maxBodyBytes: largeBodyBytes,
        metric: "query-form", summary: "Single-frame localization (multipart)")
    public static let queryJSON = APIRoute(
        "POST", "/v1/vps/map/query", access: .bearer(scope: "query"), maxBodyBytes: largeBodyBytes,
        metric: "query", summary: "Single-frame localization (JSON with a base64 image)")
    public static let multiImageQuery = APIRoute(
        "POST", "/v1/vps/map/multi-image-query", access: .bearer(scope: "query"), maxBodyBytes: largeBodyBytes,
        metric: "multi-image-query", summary: "Multi-frame localization (4–6 images with tracking poses)")
    public static let objectQuery = APIRoute(
        "POST", "/v1/vps/object/query", access: .bearer(scope: "query"), maxBodyBytes: largeBodyBytes,
        metric: "object-query", summary: "Object localization (multipart)")
    public static let upload = APIRoute(
        "POST", "/v1/vps/map/upload", access: .bearer(scope: "write"), maxBodyBytes: largeBodyBytes,
        metric: "map-upload",
        summary: "Upload a map file (201) or a capture dataset built in the background (202)")
    public static let uploadStart = APIRoute(
        "POST", "/v1/vps/map/uploads", access: .bearer(scope: "write"), maxBodyBytes: 8 << 20,
        metric: "upload-start",
        summary: "Start a resumable capture-dataset upload: name, optional code or extends, and captures.json")
    public static let uploadStatus = APIRoute(
        "GET", "/v1/vps/map/uploads/{key}", access: .bearer(scope: "write"), metric: "upload-status",
        summary: "A resumable upload: files received and missing, then the build's progress and outcome")
    public static let uploadFiles = APIRoute(
        "POST", "/v1/vps/map/uploads/{key}/files", access: .bearer(scope: "write"), maxBodyBytes: largeBodyBytes,
        metric: "upload-files", summary: "Add image files to a resumable upload (a part per file, named by its path)")
    public static let uploadComplete = APIRoute(
        "POST", "/v1/vps/map/uploads/{key}/complete", access: .bearer(scope: "write"), metric: "upload-complete",
        summary: "Complete a resumable upload: its map builds (once, however often this is called)")
    public static let mapQuality = APIRoute(
        "GET", "/v1/vps/map/{key}/quality", access: .bearer(scope: nil), metric: "map-quality",
        summary: "Quality report of an active map: points, coverage and expected localizability per floor area")
    public static let mapList = APIRoute(
        "GET", "/v1/vps/map", access: .bearer(scope: nil), metric: "map-list", summary: "List the account's maps")
    public static let mapDetails = APIRoute(
        "GET", "/v1/vps/map/{key}", access: .bearer(scope: nil), metric: "map-details",
        summary: "Map details by id or code")
    public static let mapDelete = APIRoute(
        "DELETE", "/v1/vps/map/{key}", access: .bearer(scope: "write"), metric: "map-delete",
        summary: "Delete a map by id (its files, cached copies and links go with it)")
    public static let mapSetDetails = APIRoute(
        "GET", "/v1/vps/map-set/{key}", access: .bearer(scope: nil), metric: "map-set-details",
        summary: "Map-set details by code or id")
    public static let objectDetails = APIRoute(
        "GET", "/v1/vps/object/{key}", access: .bearer(scope: nil), metric: "object-details",
        summary: "Object details by code or id")
    public static let fileLink = APIRoute(
        "GET", "/v1/file", access: .bearer(scope: nil), metric: "file", summary: "A signed download link for a file key"
    )
    public static let planDetails = APIRoute(
        "GET", "/v1/account/plan-details", access: .bearer(scope: nil), metric: "plan-details",
        summary: "Plan details of the account")

    /// Every route of the API, in the order the OpenAPI document lists them (the console's routes are in
    /// `console`; the router resolves `served`, both).
    public static let all: [APIRoute] = [
        token, queryForm, queryJSON, multiImageQuery, objectQuery, upload, uploadStart, uploadStatus, uploadFiles,
        uploadComplete, mapList, mapDetails, mapQuality, mapDelete, mapSetDetails, objectDetails, fileLink, download,
        planDetails,
        health, healthz, metrics, openAPI,
    ]

    /// What a method and path resolve to.
    public enum Resolution: Sendable, Equatable {
        /// A route and its path parameters.
        case route(APIRoute, [String: String])
        /// A known path without that method; `allowed` lists the methods it has (HEAD and OPTIONS
        /// included: HEAD wherever GET is).
        case methodNotAllowed(allowed: [String])
        /// No route has this path.
        case notFound
    }

    /// Resolves a method and an already canonical path (see `RequestTarget`). Literal segments win
    /// over parameters (`POST /v1/vps/map/upload` is the upload, not a map called "upload"); `HEAD`
    /// resolves as `GET`.
    public static func resolve(method: String, path: String) -> Resolution {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let matching = routes(matching: Array(segments))
        let wanted = method == "HEAD" ? "GET" : method
        if let (route, params) = matching.first(where: { $0.0.method == wanted }) { return .route(route, params) }
        guard !matching.isEmpty else { return .notFound }
        return .methodNotAllowed(allowed: allowedList(Set(matching.map(\.0.method))))
    }

    /// The routes a path resolves to: those with the most literal segments among the templates it
    /// fits (a path with a literal route of its own, like `/v1/vps/map/upload`, is never a `{key}`).
    static func routes(matching parts: [Substring]) -> [(APIRoute, [String: String])] {
        let fitting = served.compactMap { r in r.parameters(parts).map { (r, $0) } }
        guard let most = fitting.map({ $0.0.segments.count - $0.1.count }).max() else { return [] }
        return fitting.filter { $0.0.segments.count - $0.1.count == most }
    }

    /// The methods a path answers (for `Allow`), HEAD with GET and OPTIONS always.
    public static func allowedMethods(path: String) -> [String] {
        let parts = Array(path.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
        let methods = Set(routes(matching: parts).map(\.0.method))
        return methods.isEmpty ? [] : allowedList(methods)
    }

    static func allowedList(_ methods: Set<String>) -> [String] {
        var m = methods
        if m.contains("GET") { m.insert("HEAD") }
        m.insert("OPTIONS")
        let order = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
        return order.filter { m.contains($0) }
    }
}
