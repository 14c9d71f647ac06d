/// The typed form of a reported failure (SPEC §5.4, §8.6): `message` is the §19.1 text passed to the
/// failure callback, `code` a stable machine-readable name for it.
public struct MultiSetError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The failure class of SPEC §8.6.
    public enum Kind: String, Sendable, Equatable, Codable {
        /// Authentication failed: 401 after the renewal retry, 403, token failures, not initialized.
        case auth
        /// The request could not be sent or timed out (also transient).
        case network
        /// Worth retrying: pose not found, low confidence, missing pose data, capture failures,
        /// HTTP 408, 429, 5xx.
        case transient
        /// Other 4xx and undecodable bodies.
        case server
        /// The SDK could not build the request (a frame it cannot prepare): retrying will not help.
        case client
    }

    /// Stable codes, one per §19.1 message family.
    public enum Code: String, Sendable, Equatable, Codable, CaseIterable {
        /// `SDK not initialized` (`localizeAndWait()` before `initialize`).
        case notInitialized = "NOT_INITIALIZED"
        /// `Not authenticated`.
        case notAuthenticated = "NOT_AUTHENTICATED"
        /// `Missing mapCode or mapSetCode`.
        case missingMapCode = "MISSING_MAP_CODE"
        /// `Pose not found` or the server's `message` for `poseFound: false`.
        case poseNotFound = "POSE_NOT_FOUND"
        /// `Missing pose data in response`.
        case missingPoseData = "MISSING_POSE_DATA"
        /// `Low confidence: <0.00>`.
        case lowConfidence = "LOW_CONFIDENCE"
        /// `No frames captured`.
        case noFrames = "NO_FRAMES"
        /// `Not enough frames captured`.
        case notEnoughFrames = "NOT_ENOUGH_FRAMES"
        /// `Frame preparation failed: <reason>`.
        case framePreparationFailed = "FRAME_PREPARATION_FAILED"
        /// `API error: HTTP <status>: <message>`.
        case httpError = "HTTP_ERROR"
        /// `Network error: <detail>`.
        case network = "NETWORK_ERROR"
        /// `Request timed out`.
        case timedOut = "TIMED_OUT"
        /// `Unable to decode response`.
        case undecodableResponse = "UNDECODABLE_RESPONSE"
        /// `Object not found`.
        case objectNotFound = "OBJECT_NOT_FOUND"
        /// `No captured frame available`.
        case noCapturedFrame = "NO_CAPTURED_FRAME"
        /// `Localization already in progress` (`localizeAndWait()` while a run is pending).
        case alreadyLocalizing = "ALREADY_LOCALIZING"
    }

    /// The failure class.
    public var kind: Kind
    /// The stable code.
    public var code: Code
    /// The exact message passed to the failure callback.
    public var message: String
    /// HTTP status when the server answered with an error.
    public var statusCode: Int?
    /// The server's machine-readable `code` when present.
    public var serverCode: String?

    /// Creates an error.
    public init(kind: Kind, code: Code, message: String, statusCode: Int? = nil, serverCode: String? = nil) {
        self.kind = kind
        self.code = code
        self.message = message
        self.statusCode = statusCode
        self.serverCode = serverCode
    }

    /// Whether the failure may be retried silently (network and transient kinds).
    public var isTransient: Bool { kind == .network || kind == .transient }

    /// The message.
    public var description: String { message }
}
