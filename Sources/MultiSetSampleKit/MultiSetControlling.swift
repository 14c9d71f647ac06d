import Foundation
import MultiSetSDK

/// The part of the SDK the sample screens use: `MultiSet` conforms (see `MultiSet+MultiSetControlling.swift`),
/// and tests pass a fake, so every view model runs without a server or a camera.
///
/// Members mirror SPEC §5.1–5.2 one to one; nothing here adds behaviour.
public protocol MultiSetControlling: AnyObject {
    /// `initialize` succeeded and `release` was not called.
    var isInitialized: Bool { get }
    /// A token was obtained and is still accepted.
    var isAuthenticated: Bool { get }
    /// The validated config in force.
    var config: MultiSetConfig? { get }
    /// A run is in progress or a silent retry is due.
    var isLocalizing: Bool { get }
    /// A foreground run is in a non-idle stage or a foreground silent retry is due.
    var isShowingOverlay: Bool { get }
    /// `(captured, total)` during capture.
    var captureProgress: CaptureProgress? { get }
    /// A fix was accepted since `initialize` or the last reset.
    var hasLocalized: Bool { get }
    /// A map mesh is in the scene (hidden counts).
    var hasMapMesh: Bool { get }
    /// A map mesh load is running.
    var isMapMeshLoading: Bool { get }
    /// The user's mesh visibility flag.
    var isMapMeshVisible: Bool { get }
    /// Height to lift the bottom controls above the watermark.
    var watermarkClearance: CGFloat { get }
    /// An object was found since tracking started.
    var hasTrackedObject: Bool { get }
    /// Object tracking is on.
    var isObjectTrackingActive: Bool { get }

    /// SPEC §7.1.
    func initialize(config: MultiSetConfig, callback: any MultiSetCallback)
    /// SPEC §14.
    func updateConfig(_ config: MultiSetConfig)
    /// Changes only `localizationMode`.
    func setLocalizationMode(_ mode: LocalizationMode)
    /// A foreground run (SPEC §8.1).
    func localize()
    /// Arms the auto-start (SPEC §8.8).
    func startAutoLocalizationIfNeeded()
    /// SPEC §8.10.
    func stopLocalization()
    /// SPEC §8.10.
    func resetSession()
    /// The user's mesh flag (SPEC §11.4).
    func setMeshVisible(_ visible: Bool)
    /// SPEC §12.1.
    func startGpsUpdates()
    /// SPEC §12.1.
    func stopGpsUpdates()
    /// SPEC §13.1.
    func startObjectTracking()
    /// SPEC §13.3.
    func stopObjectTracking()
    /// Removes object meshes.
    func clearObjectMeshes()
    /// The app's activity (SPEC §10.3).
    func setAppActive(_ active: Bool)
    /// Back to uninitialized (SPEC §5.1), before `initialize` with new credentials.
    func release()
}
