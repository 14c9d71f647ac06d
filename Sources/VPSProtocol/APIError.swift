/// Machine-readable error codes of the REST API (SPEC §17.10), each with its HTTP status.
public enum APIErrorCode: String, Codable, Sendable, CaseIterable {
    case badRequest = "BAD_REQUEST"
    case invalidCredentials = "INVALID_CREDENTIALS"
    case unauthorized = "UNAUTHORIZED"
    case tokenExpired = "TOKEN_EXPIRED"
    case forbidden = "FORBIDDEN"
    case missingMapCode = "MISSING_MAP_CODE"
    case mapNotFound = "MAP_NOT_FOUND"
    case mapSetNotFound = "MAPSET_NOT_FOUND"
    case mapNotActive = "MAP_NOT_ACTIVE"
    case mapInMapSet = "MAP_IN_MAPSET"
    case invalidID = "INVALID_ID"
    case invalidImage = "INVALID_IMAGE"
    case imageTooLarge = "IMAGE_TOO_LARGE"
    case imageTooSmall = "IMAGE_TOO_SMALL"
    case invalidIntrinsics = "INVALID_INTRINSICS"
    case invalidQueryMode = "INVALID_QUERY_MODE"
    case invalidHint = "INVALID_HINT"
    case tooFewImages = "TOO_FEW_IMAGES"
    case tooManyImages = "TOO_MANY_IMAGES"
    case invalidPoseData = "INVALID_POSE_DATA"
    case tooManyObjectCodes = "TOO_MANY_OBJECT_CODES"
    case objectNotFound = "OBJECT_NOT_FOUND"
    case fileNotFound = "FILE_NOT_FOUND"
    /// The console's client management: no such client in the caller's account.
    case clientNotFound = "CLIENT_NOT_FOUND"
    case urlExpired = "URL_EXPIRED"
    case payloadTooLarge = "PAYLOAD_TOO_LARGE"
    case rateLimited = "RATE_LIMITED"
    case engineTimeout = "ENGINE_TIMEOUT"
    case internalError = "INTERNAL_ERROR"
    /// [Project design] A known path asked with a method it does not have (405, with `Allow`).
    case methodNotAllowed = "METHOD_NOT_ALLOWED"
    /// [Project design] Every worker busy and the queue full, or too many bodies being received (503,
    /// with `Retry-After`); retrying shortly is right.
    case serverBusy = "SERVER_BUSY"
    /// [Project design] The build quota of the account is used up (429, with `Retry-After`).
    case buildQuotaExceeded = "BUILD_QUOTA_EXCEEDED"
    /// [Project design] An upload's code is already used by one of the account's maps (409); codes of
    /// other accounts never conflict.
    case codeTaken = "CODE_TAKEN"
    /// [Project design] An upload that extends a map names another code for it (409): an extended map
    /// keeps its code, so a code beside `extends` may only repeat it.
    case codeMismatch = "CODE_MISMATCH"
    /// [Project design] An upload id that is unknown, expired or another account's (404).
    case uploadNotFound = "UPLOAD_NOT_FOUND"
    /// [Project design] Completing an upload that still misses files (409; the answer lists them).
    case uploadIncomplete = "UPLOAD_INCOMPLETE"

    /// The HTTP status the server answers with.
    public var httpStatus: Int {
        switch self {
        case .badRequest, .missingMapCode, .invalidID, .invalidImage, .imageTooLarge, .imageTooSmall,
            .invalidIntrinsics, .invalidQueryMode, .invalidHint, .tooFewImages, .tooManyImages, .invalidPoseData,
            .tooManyObjectCodes:
            return 400
        case .invalidCredentials, .unauthorized, .tokenExpired: return 401
        case .forbidden, .urlExpired: return 403
        case .mapNotFound, .mapSetNotFound, .objectNotFound, .fileNotFound, .clientNotFound, .uploadNotFound:
            return 404
        case .mapNotActive, .mapInMapSet, .codeTaken, .codeMismatch, .uploadIncomplete: return 409
        case .methodNotAllowed: return 405
        case .payloadTooLarge: return 413
        case .rateLimited, .buildQuotaExceeded: return 429
        case .internalError: return 500
        case .engineTimeout, .serverBusy: return 503
        }
    }
}

/// The JSON body of every non-200 answer: `{"message": "...", "code": "..."}` (SPEC D7).
public struct APIError: Error, Codable, Equatable, Sendable, CustomStringConvertible {
    /// A readable explanation.
    public var message: String
    /// The stable code; unknown codes from newer servers decode as `.internalError`'s raw value kept in `rawCode`.
    public var code: String

    /// Builds an error from a known code.
    public init(_ code: APIErrorCode, _ message: String) {
        self.code = code.rawValue
        self.message = message
    }

    /// The known code, if this is one.
    public var knownCode: APIErrorCode? { APIErrorCode(rawValue: code) }

    /// The HTTP status for this error (500 for unknown codes).
    public var httpStatus: Int { knownCode?.httpStatus ?? 500 }

    public var description: String { "\(code): \(message)" }
}
