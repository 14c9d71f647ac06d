import Foundation
import MultiSetSDK

/// The object tracking screen (`ARObjectTrackingView`, a navigation target of the landing screen):
/// start/stop, the last detection and failure, and close.
public final class ObjectTrackingViewModel: ChangeNotifying {
    /// Texts.
    public enum Text {
        /// Before anything happened.
        public static let idle = "Point the camera at an object"
        /// While tracking without a detection yet.
        public static let searching = "Looking for objects…"
        /// Buttons.
        public static let start = "Start Tracking", stop = "Stop Tracking"
    }

    /// The status line.
    public private(set) var statusText = Text.idle
    /// The last object found and its confidence.
    public private(set) var lastDetection: (objectCode: String, confidence: Double)?
    /// Polled: tracking is on.
    public private(set) var isTracking = false
    /// Objects whose mesh is in the scene.
    public private(set) var loadedMeshes: [String] = []
    /// `End` was chosen: the host navigates back.
    public private(set) var shouldNavigateBack = false
    /// State changed.
    public var onChange: (() -> Void)?

    private let sdk: any MultiSetControlling
    private let delegate: MultiSetSDKDelegate

    /// A screen model.
    public init(sdk: any MultiSetControlling, delegate: MultiSetSDKDelegate) {
        self.sdk = sdk
        self.delegate = delegate
    }

    /// The start/stop button's title.
    public var toggleTitle: String { isTracking ? Text.stop : Text.start }

    /// Appear: callbacks; starts tracking with `autoObjectTracking`.
    public func onAppear() {
        delegate.onObjectTrackingSuccess = { [weak self] code, confidence in
            guard let self else { return }
            self.lastDetection = (code, confidence)
            self.statusText = "Found \(code) (confidence \(String(format: "%.2f", confidence)))"
            self.refresh()
        }
        delegate.onObjectTrackingFailure = { [weak self] error in
            guard let self else { return }
            self.statusText = error
            self.refresh()
        }
        delegate.onObjectMeshLoaded = { [weak self] code in
            guard let self else { return }
            if !self.loadedMeshes.contains(code) { self.loadedMeshes.append(code) }
            self.refresh()
        }
        if sdk.config?.autoObjectTracking == true { start() }
        refresh()
    }

    /// The start/stop button.
    public func toggleTracking() { isTracking ? stop() : start() }

    /// Close: stop tracking, clear the meshes, navigate back.
    public func close() {
        sdk.stopObjectTracking()
        sdk.clearObjectMeshes()
        loadedMeshes = []
        shouldNavigateBack = true
        refresh()
    }

    /// Re-reads the SDK's state.
    public func refresh() {
        isTracking = sdk.isObjectTrackingActive
        notifyChange()
    }

    private func start() {
        sdk.startObjectTracking()
        if lastDetection == nil { statusText = Text.searching }
        refresh()
    }

    private func stop() {
        sdk.stopObjectTracking()
        refresh()
    }
}
