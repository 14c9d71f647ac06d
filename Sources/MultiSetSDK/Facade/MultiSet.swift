import Foundation

/// The SDK's entry point (SPEC §5.1–5.2): `MultiSet.shared` in apps, `MultiSet(environment:)` in
/// tests.
///
/// Every member is callable from any thread. State lives in a value-type ``SessionMachine`` that a
/// driver feeds one event at a time. Callbacks arrive in event order on the environment's
/// `callbackQueue` (the main queue unless the environment names another); scene calls and the gizmo
/// handler always run on the main actor. Frames are acquired and prepared on the environment's frame
/// queue, never on the caller's thread.
public final class MultiSet: @unchecked Sendable {
    /// The process-wide instance over the live environment: callbacks on the main queue, URLSession,
    /// ImageIO (Apple platforms) or the SDK's own JPEG codec (elsewhere), frame work off the main thread.
    public static let shared = MultiSet()

    /// The SDK's semantic version.
    public static var version: String { MultiSetVersion.string }

    let driver: SessionDriver

    /// Creates an instance over an injected environment (tests, custom transports).
    public init(environment: MultiSetEnvironment = .live) {
        driver = SessionDriver(environment: environment)
    }

    // MARK: Lifecycle (SPEC §7)

    /// Validates `config`, then authenticates asynchronously (SPEC §7.1). `callback` is kept
    /// strongly and receives every event from now on, unless the SDK is already initialized and
    /// authenticated or authenticating: then the call only logs `Already initialized` and the callback
    /// in force stays.
    public func initialize(config: MultiSetConfig, callback: any MultiSetCallback) {
        let token = driver.park(callback)
        driver.post(.initialize(config, callbackToken: token))
    }

    /// Applies a new configuration to the running SDK from the next run (SPEC §14).
    public func updateConfig(_ config: MultiSetConfig) { driver.post(.updateConfig(config)) }

    /// Changes only `localizationMode` (next run).
    public func setLocalizationMode(_ mode: LocalizationMode) {
        guard var c = config else { return driver.post(.updateConfig(MultiSetConfig())) }
        c.localizationMode = mode
        updateConfig(c)
    }

    /// Changes only `queryMode` (next run).
    public func setQueryMode(_ mode: QueryMode) {
        guard var c = config else { return driver.post(.updateConfig(MultiSetConfig())) }
        c.queryMode = mode
        updateConfig(c)
    }

    /// Stops everything, removes meshes, stops GPS and object tracking; back to uninitialized.
    public func release() { driver.post(.release) }

    // MARK: Localization (SPEC §8)

    /// Starts a foreground run (SPEC §8.1).
    public func localize() { driver.post(.localize(attempt: nil)) }

    /// Arms the auto-start (1.5 s after normal tracking) when `autoLocalize` is on, the SDK is
    /// authenticated, no fix was accepted since the last reset and nothing is running or pending.
    public func startAutoLocalizationIfNeeded() { driver.post(.startAutoLocalizationIfNeeded) }

    /// Cancels the run in flight and every pending retry and timer; gate and meshes are kept.
    public func stopLocalization() { driver.post(.stopLocalization) }

    /// Starts over: stop, remove every mesh, forget the gate, restart the world origin.
    public func resetSession() { driver.post(.resetSession) }

    /// Forgets the gate's anchor and rejection counter; the next fix bootstraps. Scene untouched.
    public func resetPoseConsistencyReference() { driver.post(.resetPoseConsistencyReference) }

    // MARK: Meshes (SPEC §11)

    /// Sets the user's mesh visibility flag.
    public func setMeshVisible(_ visible: Bool) { driver.post(.setMeshVisible(visible)) }

    /// Removes the map meshes.
    public func clearMesh() { driver.post(.clearMesh) }

    // MARK: GPS (SPEC §12)

    /// Starts the location provider (only with `passGeoPose`).
    public func startGpsUpdates() { driver.post(.startGps) }

    /// Stops the location provider.
    public func stopGpsUpdates() { driver.post(.stopGps) }

    // MARK: Objects (SPEC §13)

    /// Starts object tracking.
    public func startObjectTracking() { driver.post(.startObjectTracking) }

    /// Stops object tracking and its timers.
    public func stopObjectTracking() { driver.post(.stopObjectTracking) }

    /// Removes object meshes.
    public func clearObjectMeshes() { driver.post(.clearObjectMeshes) }

    // MARK: Host signals (SPEC §4.5)

    /// Attaches the frame source; replacing one is a world-origin reset.
    public func attach(frameSource: any FrameSource) {
        let replacing = driver.attach(frameSource)
        driver.post(.frameSourceAttached(replacing: replacing))
    }

    /// Reports the AR tracking signal.
    public func notifyTracking(_ signal: TrackingSignal) { driver.post(.tracking(signal)) }

    /// Reports that the frame source restarted in a new world frame on its own.
    public func notifyWorldOriginReset() { driver.post(.worldOriginReset) }

    /// Reports whether the app is active (foreground).
    public func setAppActive(_ active: Bool) { driver.post(.appActive(active)) }

    /// Sets the GPS source.
    public func setLocationProvider(_ provider: (any LocationProvider)?) { driver.setLocationProvider(provider) }

    /// Sets the scene receiving visual effects. A new scene receives at once what the SDK holds: the
    /// map root (when this world frame has a fix), every map mesh with its current visibility, and the
    /// tracked objects (a screen opened again shows the same map).
    public func setScene(_ scene: (any MultiSetScene)?) { driver.setScene(scene) }

    /// Receives the same pose as `MultiSetScene.setMapRootPose` (the gizmo), on the main actor.
    public func setGizmoUpdateHandler(_ handler: (@MainActor @Sendable (Pose) -> Void)?) {
        driver.setGizmoHandler(handler)
    }

    // MARK: Properties (SPEC §5.2)

    /// The normalized API root in force.
    public var activeBaseURL: String { driver.read { $0.config?.baseURL } ?? MultiSetConfig.defaultBaseURL }
    /// The bearer token while authenticated.
    public var authToken: String? { isAuthenticated ? driver.authToken : nil }
    /// `initialize` succeeded and `release` was not called.
    public var isInitialized: Bool { driver.read { $0.isInitialized } }
    /// A token was obtained and is still accepted.
    public var isAuthenticated: Bool { driver.read { $0.isAuthenticated } }
    /// The validated config in force.
    public var config: MultiSetConfig? { driver.read { $0.config } }
    /// A run is in progress or a silent retry is due.
    public var isLocalizing: Bool { driver.read { $0.isLocalizing } }
    /// The run is in `.capturing`.
    public var isCapturingFrames: Bool { driver.read { $0.isCapturingFrames } }
    /// `(captured, total)` during capture.
    public var captureProgress: CaptureProgress? { driver.read { $0.captureProgress } }
    /// A foreground run is in a non-idle stage or a foreground silent retry is due.
    public var isShowingOverlay: Bool { driver.read { $0.isShowingOverlay } }
    /// A fix was accepted since `initialize` or the last reset.
    public var hasLocalized: Bool { driver.read { $0.hasLocalized } }
    /// The last accepted result.
    public var lastResult: LocalizationResult? { driver.read { $0.lastResult } }
    /// The anchor's trust; nil without anchor or gate.
    public var anchorTrust: AnchorTrust? { driver.read { $0.anchorTrust } }
    /// A map mesh is in the scene (hidden counts).
    public var hasMapMesh: Bool { driver.read { $0.hasMapMesh } }
    /// A map mesh load is running.
    public var isMapMeshLoading: Bool { driver.read { $0.isMapMeshLoading } }
    /// The user's mesh visibility flag (default true).
    public var isMapMeshVisible: Bool { driver.read { $0.userMeshVisible } }
    /// 44 when the account plan reports a watermark, else 0.
    public var watermarkClearance: CGFloat { driver.read { $0.watermark } ? 44 : 0 }
    /// An object was found since tracking started.
    public var hasTrackedObject: Bool { driver.read { $0.hasTrackedObject } }
    /// Object tracking is on.
    public var isObjectTrackingActive: Bool { driver.read { $0.objectActive } }
    /// Typed form of the last reported localization failure.
    public var lastLocalizationError: MultiSetError? { driver.read { $0.lastError } }
    /// The mapped tracking state, once a signal arrived.
    public var trackingState: TrackingState? { driver.read { $0.trackingState } }
    /// The current run's stage (`.idle` without a run).
    public var stage: LocalizationStage { driver.read { $0.currentRun?.stage } ?? .idle }
}
