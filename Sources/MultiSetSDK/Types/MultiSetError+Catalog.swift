/// Every error the SDK reports, with its §19.1 message, kind and code in one place.
extension MultiSetError {
    static let notInitialized = MultiSetError(kind: .auth, code: .notInitialized, message: "SDK not initialized")
    static let notAuthenticated = MultiSetError(
        kind: .auth, code: .notAuthenticated, message: Messages.notAuthenticated)
    static let missingMapCode = MultiSetError(kind: .server, code: .missingMapCode, message: Messages.missingMapCode)
    static let missingPoseData = MultiSetError(kind: .transient, code: .missingPoseData, message: Messages.missingPose)
    static let noFrames = MultiSetError(kind: .transient, code: .noFrames, message: Messages.noFrames)
    static let notEnoughFrames = MultiSetError(
        kind: .transient, code: .notEnoughFrames, message: Messages.notEnoughFrames)
    static let undecodableResponse = MultiSetError(
        kind: .server, code: .undecodableResponse, message: Messages.undecodable)
    static let objectNotFound = MultiSetError(kind: .transient, code: .objectNotFound, message: Messages.objectNotFound)
    static let noCapturedFrame = MultiSetError(
        kind: .transient, code: .noCapturedFrame, message: Messages.noCapturedFrame)
    static let alreadyLocalizing = MultiSetError(
        kind: .client, code: .alreadyLocalizing, message: Messages.alreadyLocalizing)

    /// `poseFound: false` with the server's message, else `Pose not found`.
    static func poseNotFound(_ message: String?) -> MultiSetError {
        MultiSetError(kind: .transient, code: .poseNotFound, message: message ?? Messages.poseNotFound)
    }

    /// `Low confidence: <2 decimals>`.
    static func lowConfidence(_ value: Double) -> MultiSetError {
        MultiSetError(kind: .transient, code: .lowConfidence, message: Messages.lowConfidence(value))
    }

    /// `Frame preparation failed: <reason>`: the frame cannot be encoded, so retrying will not help.
    static func framePreparationFailed(_ reason: String) -> MultiSetError {
        MultiSetError(kind: .client, code: .framePreparationFailed, message: "Frame preparation failed: \(reason)")
    }

    /// `Network error: <detail>`.
    static func network(_ detail: String) -> MultiSetError {
        MultiSetError(kind: .network, code: .network, message: Messages.network(detail))
    }

    /// `Request timed out`.
    static let timedOut = MultiSetError(kind: .network, code: .timedOut, message: Messages.timedOut)
}
