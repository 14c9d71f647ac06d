/// The routes of the operators' web console (`/console`, docs/CONSOLE.md): its static files and the
/// account-scoped API behind it. The router resolves them beside `APIRoutes.all`; they are not part of
/// the MultiSet-compatible API, so the OpenAPI document and the SDK leave them out.
extension APIRoutes {
    /// `GET /console`: the console's page.
    public static let consolePage = APIRoute(
        "GET", "/console", access: .open, metric: "console", summary: "The operators' web console")
    /// `GET /console/{asset}`: its scripts and style sheet.
    public static let consoleAsset = APIRoute(
        "GET", "/console/{asset}", access: .open, metric: "console", summary: "A file of the web console")
    /// `GET /v1/console/session`: who the bearer is (client, account, scopes).
    public static let consoleSession = APIRoute(
        "GET", "/v1/console/session", access: .bearer(scope: nil), metric: "console-session",
        summary: "The caller's client, account and scopes")
    /// `GET /v1/console/queries`: the account's recent queries, newest last.
    public static let consoleQueries = APIRoute(
        "GET", "/v1/console/queries", access: .bearer(scope: nil), metric: "console-queries",
        summary: "The account's recent queries")
    /// `GET /v1/console/queries/stream`: the account's queries as server-sent events.
    public static let consoleQueryStream = APIRoute(
        "GET", "/v1/console/queries/stream", access: .bearer(scope: nil), metric: "console-stream",
        summary: "The account's queries as server-sent events (text/event-stream)")
    /// `GET /v1/console/usage`: queries and poses found per map and minute.
    public static let consoleUsage = APIRoute(
        "GET", "/v1/console/usage", access: .bearer(scope: nil), metric: "console-usage",
        summary: "Queries and poses found per map and minute (the account's maps only)")
    /// `GET /v1/console/maps/{key}/scene`: what the 3D viewer draws besides the points.
    public static let consoleScene = APIRoute(
        "GET", "/v1/console/maps/{key}/scene", access: .bearer(scope: nil), metric: "console-scene",
        summary: "A map's keyframes, georeference, build report and status for the viewer")
    /// `GET /v1/console/maps/{key}/points`: the point cloud, binary (docs/FORMATS.md).
    public static let consolePoints = APIRoute(
        "GET", "/v1/console/maps/{key}/points", access: .bearer(scope: nil), metric: "console-points",
        summary: "A map's points and colours (binary)")
    /// `GET /v1/console/maps/{key}/mesh`: the map's GLB.
    public static let consoleMesh = APIRoute(
        "GET", "/v1/console/maps/{key}/mesh", access: .bearer(scope: nil), metric: "console-mesh",
        summary: "A map's mesh (GLB)")
    /// `GET /v1/console/maps/{key}/keyframes/{frame}/image`: what a keyframe saw.
    public static let consoleKeyframeImage = APIRoute(
        "GET", "/v1/console/maps/{key}/keyframes/{frame}/image", access: .bearer(scope: nil),
        metric: "console-keyframe-image", summary: "A keyframe's image (JPEG)")
    /// `GET /v1/console/clients`: the account's clients (admin).
    public static let consoleClients = APIRoute(
        "GET", "/v1/console/clients", access: .bearer(scope: "admin"), metric: "console-clients",
        summary: "The account's API clients (admin scope)")
    /// `POST /v1/console/clients`: a new client of the account (admin); the secret is shown once.
    public static let consoleClientCreate = APIRoute(
        "POST", "/v1/console/clients", access: .bearer(scope: "admin"), metric: "console-client-create",
        summary: "Create an API client of the account (admin scope)")
    /// `POST /v1/console/clients/{id}/revoke`: revokes one of the account's clients (admin).
    public static let consoleClientRevoke = APIRoute(
        "POST", "/v1/console/clients/{id}/revoke", access: .bearer(scope: "admin"), metric: "console-client-revoke",
        summary: "Revoke an API client of the account (admin scope)")

    /// The console's routes.
    public static let console: [APIRoute] = [
        consolePage, consoleAsset, consoleSession, consoleQueries, consoleQueryStream, consoleUsage, consoleScene,
        consolePoints, consoleMesh, consoleKeyframeImage, consoleClients, consoleClientCreate, consoleClientRevoke,
    ]

    /// Every route the server answers: the API, then the console.
    public static let served: [APIRoute] = all + console
}
