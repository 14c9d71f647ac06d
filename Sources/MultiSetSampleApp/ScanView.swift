#if canImport(SwiftUI) && canImport(ARKit) && os(iOS)
import ARKit
import MultiSetSDK
import MultiSetSampleKit
import RealityKit
import SwiftUI

/// The "Scan a map" screen: the camera, the live coverage and warnings, the main button (start, finish,
/// upload, localize here), "Extend this map" once a map is ready, and the upload and build progress. A thin binding over `ScanViewModel`.
@available(iOS 17.0, *)
public struct ScanView: View {
    @StateObject private var model: ScanViewModel
    private let onLocalizeHere: (String) -> Void

    /// The screen uploading to the server of `config` (its credentials and base URL).
    public init(config: MultiSetConfig, onLocalizeHere: @escaping (String) -> Void) {
        let uploader = ScanUploader(
            baseURL: config.baseURL, clientId: config.clientId, clientSecret: config.clientSecret)
        let folder = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0]
            .appendingPathComponent("scan", isDirectory: true)
        _model = StateObject(
            wrappedValue: ScanViewModel(
                folder: folder,
                upload: { result, target, progress throws(ScanError) in
                    switch target {
                    case .newMap(let name): try await uploader.upload(result, name: name, progress: progress)
                    case .extend(let code): try await uploader.extend(mapCode: code, with: result, progress: progress)
                    }
                }))
        self.onLocalizeHere = onLocalizeHere
    }

    public var body: some View {
        ZStack(alignment: .bottom) {
            ScanCameraView(model: model).ignoresSafeArea()
            VStack(spacing: 12) {
                Text(model.titleText).font(.headline)
                Text(model.feedbackText).font(.subheadline.monospacedDigit())
                if let warning = model.warningText {
                    Text(warning).font(.footnote).foregroundStyle(.orange).multilineTextAlignment(.center)
                }
                if let fraction = model.progressFraction {
                    ProgressView(value: fraction) { Text(model.progressText ?? "") }
                }
                TextField("Map name", text: $model.mapName).textFieldStyle(.roundedBorder)
                    .disabled(model.phase != .ready || model.extendingMapCode != nil)
                Button(model.primaryButtonTitle) { model.tapPrimary() }
                    .buttonStyle(.borderedProminent)
                    .disabled(!model.isPrimaryEnabled)
                if model.canExtend {
                    Button("Extend this map") { model.extendThisMap() }.buttonStyle(.bordered)
                }
            }
            .padding()
            .background(.ultraThinMaterial, in: RoundedRectangle(cornerRadius: 16))
            .padding()
        }
        .onAppear { model.onLocalizeHere = onLocalizeHere }
    }
}

/// An AR camera view feeding the scan model at most 10 times a second.
@available(iOS 17.0, *)
struct ScanCameraView: UIViewRepresentable {
    let model: ScanViewModel

    func makeCoordinator() -> Coordinator { Coordinator(model: model) }

    func makeUIView(context: Context) -> ARView {
        let view = ARView(frame: .zero, cameraMode: .ar, automaticallyConfigureSession: false)
        view.session.delegate = context.coordinator
        context.coordinator.source.session = view.session
        let configuration = ARWorldTrackingConfiguration()
        configuration.worldAlignment = .gravity
        view.session.run(configuration)
        return view
    }

    func updateUIView(_ view: ARView, context: Context) {}

    final class Coordinator: NSObject, ARSessionDelegate {
        let model: ScanViewModel
        let source = ARKitFrameSource(sdk: MultiSet.shared)
        private var lastDelivered: TimeInterval = 0

        init(model: ScanViewModel) { self.model = model }

        func session(_ session: ARSession, didUpdate frame: ARFrame) {
            source.session(session, didUpdate: frame)
            guard frame.timestamp - lastDelivered >= 0.1 else { return }
            lastDelivered = frame.timestamp
            let signal = ARKitFrameSource.signal(frame.camera.trackingState)
            guard let camera = source.acquire() else { return }
            let model = self.model
            DispatchQueue.main.async { model.frameArrived(camera, tracking: signal) }
        }
    }
}
#endif
