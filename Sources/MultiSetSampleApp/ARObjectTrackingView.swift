#if canImport(SwiftUI) && canImport(ARKit) && os(iOS)
import MultiSetSDK
import MultiSetSampleKit
import SwiftUI

/// The object tracking screen: camera, status, start/stop, close.
@available(iOS 17.0, *)
public struct ARObjectTrackingView: View {
    @StateObject private var model: ObjectTrackingViewModel
    @Environment(\.dismiss) private var dismiss

    /// The screen over the delegate the SDK was initialized with.
    public init(sdkDelegate: MultiSetSDKDelegate) {
        _model = StateObject(wrappedValue: ObjectTrackingViewModel(sdk: MultiSet.shared, delegate: sdkDelegate))
    }

    public var body: some View {
        ZStack(alignment: .bottom) {
            MultiSetARView().ignoresSafeArea()
            VStack(spacing: 12) {
                Text(model.statusText).padding(8).background(.thinMaterial, in: RoundedRectangle(cornerRadius: 8))
                HStack {
                    Button(model.toggleTitle) { model.toggleTracking() }.buttonStyle(.borderedProminent)
                    Button("Close") { model.close() }
                }
            }
            .padding()
        }
        .onAppear { model.onAppear() }
        .onChange(of: model.shouldNavigateBack) { _, back in if back { dismiss() } }
    }
}
#endif
