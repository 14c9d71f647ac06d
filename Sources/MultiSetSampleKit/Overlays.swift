import Foundation
import MultiSetSDK

/// `FrameCaptureOverlay`: dimmed background, animated phone, instruction and progress (SPEC §16.5).
public struct FrameCaptureOverlay: Equatable, Sendable {
    /// The instruction under the illustration.
    public static let instruction = "Move your device slowly across the scene"
    /// The image being captured (1-based, at most `total`).
    public let index: Int
    /// Images in this run.
    public let total: Int
    /// `Capturing image <i> of <n>`.
    public var progressText: String { "Capturing image \(index) of \(total)" }
}

/// `ServerWaitOverlay`: spinner and `Uploading…`, then `Matching against the map…` (SPEC §16.5).
public struct ServerWaitOverlay: Equatable, Sendable {
    /// The request body is being sent.
    public static let uploading = "Uploading…"
    /// Waiting for the server (also during a silent retry's pause).
    public static let matching = "Matching against the map…"
    /// The text shown.
    public let text: String
}

/// A toast at the bottom of the screen, hidden after 2 s (SPEC §16.5).
public struct Toast: Equatable, Sendable {
    /// Seconds a toast stays.
    public static let duration: Double = 2
    /// The text.
    public let message: String
    /// Green (success) or red styling.
    public let isSuccess: Bool
}

/// Toast texts (SPEC §16.5).
public enum ToastText {
    /// An accepted foreground fix.
    public static let success = "Localization successful"
    /// A foreground fix the gate discarded.
    public static let responseReceived = "Localization response received"
    /// After `Reset & Start Over` or the reset button.
    public static let worldOriginReset = "World origin reset"

    /// `Map re-anchored %.1f m (<trust>)`.
    public static func reanchored(meters: Float, trust: AnchorTrust) -> String {
        "Map re-anchored \(oneDecimal(meters)) m (\(trust))"
    }

    static func oneDecimal(_ v: Float) -> String { String(format: "%.1f", Double(v)) }
}
