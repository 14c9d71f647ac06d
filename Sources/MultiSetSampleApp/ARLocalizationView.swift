#if canImport(SwiftUI) && canImport(ARKit) && os(iOS)
import MultiSetSDK
import MultiSetSampleKit
import SwiftUI

/// The AR localization screen (seed `ARLocalizationView`): camera, overlays, status card, GPS, mesh
/// controls, toasts and alerts, all from `ARLocalizationViewModel`.
@available(iOS 17.0, *)
public struct ARLocalizationView: View {
    @StateObject private var model: ARLocalizationViewModel
    @Environment(\.dismiss) private var dismiss
    @Environment(\.scenePhase) private var scenePhase

    /// The screen for `localizationMode`, over the delegate the SDK was initialized with.
    public init(sdkDelegate: MultiSetSDKDelegate, localizationMode: LocalizationMode) {
        _model = StateObject(
            wrappedValue: ARLocalizationViewModel(
                sdk: MultiSet.shared, delegate: sdkDelegate, localizationMode: localizationMode,
                scheduler: DispatchScheduler(queue: .main), locationProvider: CoreLocationProvider.shared))
    }

    public var body: some View {
        ZStack {
            MultiSetARView().ignoresSafeArea()
            if let overlay = model.frameCaptureOverlay {
                VStack(spacing: 16) {
                    Image(systemName: "iphone.radiowaves.left.and.right").font(.system(size: 56)).symbolEffect(.pulse)
                    Text(FrameCaptureOverlay.instruction)
                    Text(overlay.progressText).font(.headline)
                }
                .foregroundStyle(.white).frame(maxWidth: .infinity, maxHeight: .infinity).background(
                    .black.opacity(0.5))
            } else if let overlay = model.serverWaitOverlay {
                VStack(spacing: 16) {
                    ProgressView().tint(.white)
                    Text(overlay.text)
                }
                .foregroundStyle(.white).frame(maxWidth: .infinity, maxHeight: .infinity).background(
                    .black.opacity(0.5))
            }
            controls
        }
        .onAppear { model.onAppear() }
        .onDisappear { model.onDisappear() }
        .onChange(of: scenePhase) { _, phase in model.scenePhaseChanged(AppScenePhase(phase)) }
        .onChange(of: model.shouldNavigateBack) { _, back in if back { dismiss() } }
        .alert(
            model.presentedAlert?.title ?? "", isPresented: .constant(model.presentedAlert != nil),
            presenting: model.presentedAlert
        ) { alert in
            ForEach(alert.buttons, id: \.title) { button in
                Button(button.title, role: button.isCancel ? .cancel : button.isDestructive ? .destructive : nil) {
                    model.tap(button)
                }
            }
        } message: { alert in
            Text(alert.message)
        }
    }

    private var controls: some View {
        VStack(alignment: .leading) {
            HStack(alignment: .top) {
                VStack(alignment: .leading, spacing: 6) {
                    if let card = model.runStatus.card {
                        Label(
                            card.text,
                            systemImage: card.symbol == .tick
                                ? "checkmark.circle.fill" : card.symbol == .redMark ? "xmark.circle.fill" : "clock"
                        )
                        .font(.caption).padding(8).background(.thinMaterial, in: RoundedRectangle(cornerRadius: 8))
                        .transition(.opacity)
                    }
                    if let gps = model.gpsIndicatorText {
                        Text(gps).font(.caption2).padding(6).background(.thinMaterial)
                    }
                }
                .animation(.easeOut, value: model.runStatus.card)
                Spacer()
                Button {
                    model.closeTapped()
                } label: {
                    Image(systemName: "xmark.circle.fill").font(.title)
                }
            }
            Spacer()
            if let loading = model.meshLoadingText { ProgressView(loading).tint(.white) }
            if let toast = model.toast {
                Text(toast.message).padding(10)
                    .background(toast.isSuccess ? Color.green.opacity(0.85) : Color.red.opacity(0.85), in: Capsule())
            }
            HStack {
                Button {
                    model.resetWorldOrigin()
                } label: {
                    Image(systemName: "arrow.counterclockwise.circle.fill").font(.title)
                }
                Button("Localize") { model.startLocalization() }
                    .buttonStyle(.borderedProminent).disabled(!model.isLocalizeEnabled)
                if let title = model.meshToggleTitle { Button(title) { model.toggleMeshVisibility() } }
            }
            .padding(.bottom, model.watermarkClearance)
        }
        .padding()
    }
}
@available(iOS 17.0, *)
extension AppScenePhase {
    /// SwiftUI's scene phase.
    init(_ phase: ScenePhase) {
        switch phase {
        case .active: self = .active
        case .background: self = .background
        default: self = .inactive
        }
    }
}
#endif
