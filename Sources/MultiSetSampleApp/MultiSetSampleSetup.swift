#if canImport(SwiftUI) && canImport(ARKit) && os(iOS)
import MultiSetSDK

/// What the app does once at launch, before the first screen.
@available(iOS 17.0, *)
public enum MultiSetSampleSetup {
    /// Gives `MultiSet.shared` the device's GPS (used only with `passGeoPose`).
    @MainActor public static func configure() {
        MultiSet.shared.setLocationProvider(CoreLocationProvider.shared)
    }
}
#endif
