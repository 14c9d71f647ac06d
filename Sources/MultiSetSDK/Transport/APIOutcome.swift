import Foundation

/// How an authenticated request ended, after token renewal and the 401 retry (SPEC §7.2).
enum APIOutcome: Sendable, Equatable {
    /// The server answered (any status but a second 401).
    case response(HTTPResponse)
    /// No answer: network failure or timeout.
    case transportFailure(MultiSetError)
    /// Authentication is lost: a second 401, or 401/403 from the token endpoint. Carries the
    /// `Authentication Failed: …` message.
    case authenticationLost(String)
}

/// Timeouts of SPEC §7.3.
enum RequestTimeout {
    /// Token and resource requests.
    static let resource: TimeInterval = 30
    /// Query requests.
    static let query: TimeInterval = 60
    /// Mesh downloads.
    static let download: TimeInterval = 120
}

/// SPEC §19.1 texts built from errors.
enum Messages {
    static let notAuthenticated = "Not authenticated"
    static let missingCredentials = "Missing clientId or clientSecret"
    static let missingAnyCode = "Missing mapCode, mapSetCode, or objectCodes"
    static let missingMapCode = "Missing mapCode or mapSetCode"
    static let authUnparsable = "Authentication Failed: Unable to parse response"
    static let poseNotFound = "Pose not found"
    static let missingPose = "Missing pose data in response"
    static let noFrames = "No frames captured"
    static let notEnoughFrames = "Not enough frames captured"
    static let timedOut = "Request timed out"
    static let undecodable = "Unable to decode response"
    static let objectNotFound = "Object not found"
    static let noCapturedFrame = "No captured frame available"
    static let noObjectCodes = "No object codes configured"
    static let alreadyInitialized = "Already initialized"
    static let alreadyLocalizing = "Localization already in progress"
    static let updateIgnored = "updateConfig ignored: not initialized"
    static let backgroundSkipped = "Background localization skipped: app inactive"

    static func authFailed(_ detail: String) -> String { "Authentication Failed: \(detail)" }
    static func lowConfidence(_ value: Double) -> String { "Low confidence: \(String(format: "%.2f", value))" }
    static func network(_ detail: String) -> String { "Network error: \(detail)" }
    static func meshFailed(_ reason: String) -> String { "Mesh load failed: \(reason)" }

    /// `API error: HTTP <status>: <message>` with the error body's `message`, else the raw body cut
    /// to 200 characters.
    static func apiError(_ response: HTTPResponse) -> String {
        "API error: HTTP \(response.status): \(serverMessage(response) ?? rawBody(response))"
    }

    /// The `message` field of an error body.
    static func serverMessage(_ response: HTTPResponse) -> String? {
        JSONValue.parse(response.body)?["message"]?.string
    }

    static func serverCode(_ response: HTTPResponse) -> String? {
        JSONValue.parse(response.body)?["code"]?.string
    }

    static func rawBody(_ response: HTTPResponse) -> String {
        String(String(decoding: response.body, as: UTF8.self).prefix(200))
    }

    /// The typed error of a transport failure.
    static func transportError(_ error: TransportError) -> MultiSetError {
        switch error {
        case .timedOut: MultiSetError.timedOut
        case .network(let detail): MultiSetError.network(detail)
        case .cancelled: MultiSetError.network("cancelled")
        }
    }

    /// The typed error of a non-200 answer (SPEC §8.6).
    static func httpError(_ response: HTTPResponse) -> MultiSetError {
        let s = response.status
        let kind: MultiSetError.Kind =
            (s == 408 || s == 429 || s >= 500) ? .transient : (s == 401 || s == 403) ? .auth : .server
        return MultiSetError(
            kind: kind, code: .httpError, message: apiError(response), statusCode: s, serverCode: serverCode(response))
    }
}
