#if canImport(SwiftUI) && canImport(ARKit) && os(iOS)
import ARKit
import MultiSetSDK
import RealityKit
import SwiftUI

/// The camera view of the seeds (`MultiSetARView()`): an `ARView` whose session feeds `MultiSet.shared`
/// (frames and tracking) and whose scene shows the map root, the gizmo and the meshes.
///
/// Each appearance makes a new AR session, so the SDK sees a new frame source (a world-origin reset)
/// and the new scene receives what the SDK holds (the meshes, and the map root once this world frame
/// has a fix).
@available(iOS 17.0, *)
public struct MultiSetARView: UIViewRepresentable {
    let sdk: MultiSet

    /// A view over `sdk` (`MultiSet.shared` by default).
    public init(sdk: MultiSet = .shared) { self.sdk = sdk }

    public func makeCoordinator() -> ARKitFrameSource { ARKitFrameSource(sdk: sdk) }

    public func makeUIView(context: Context) -> ARView {
        let view = ARView(frame: .zero, cameraMode: .ar, automaticallyConfigureSession: false)
        let source = context.coordinator
        source.session = view.session
        view.session.delegate = source
        sdk.attach(frameSource: source)
        sdk.setScene(RealityKitMapScene(arView: view))
        let configuration = ARWorldTrackingConfiguration()
        configuration.worldAlignment = .gravity
        view.session.run(configuration)
        return view
    }

    public func updateUIView(_ uiView: ARView, context: Context) {}

    public static func dismantleUIView(_ uiView: ARView, coordinator: ARKitFrameSource) {
        uiView.session.pause()
        coordinator.sdk.setScene(nil)
    }
}
#endif
