#if canImport(SwiftUI) && canImport(ARKit) && os(iOS)
import ARKit
import MultiSetSDK
import RealityKit
import SwiftUI

/// The camera view: an `ARView` whose session feeds the SDK (frames, tracking) and whose scene shows
/// the map root and meshes.
@available(iOS 17.0, *)
public struct MultiSetARView: UIViewRepresentable {
    let sdk: MultiSet

    /// A view over `sdk` (the sample's instance by default).
    public init(sdk: MultiSet = SampleSDK.shared) { self.sdk = sdk }

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
    }
}
#endif
