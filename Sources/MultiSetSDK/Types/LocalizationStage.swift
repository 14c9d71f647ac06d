/// The stage of a localization run (SPEC §8.2), reported by `onLocalizationStageChanged`.
///
/// Every run goes `.capturing` → `.uploading` → `.awaitingResponse` → `.idle`; a capture failure
/// goes `.capturing` → `.idle`; a cancelled run emits `.idle` once.
public enum LocalizationStage: String, Sendable, Codable, CaseIterable {
    /// Frames are being captured.
    case capturing
    /// The request body is being sent.
    case uploading
    /// The body was sent; waiting for the server.
    case awaitingResponse
    /// No run in progress.
    case idle
}
