#if canImport(SwiftUI) && canImport(ARKit) && os(iOS)
import MultiSetSDK
import MultiSetSampleKit
import SwiftUI

// The seed's "Basic Usage" (ARLocalizationView page) as written there, compiled with the sample app;
// only the availability attribute is added (`MultiSetARView` needs iOS 17).

@available(iOS 17.0, *)
struct MyARView: View {
    @ObservedObject var sdkDelegate: MultiSetSDKDelegate
    let localizationMode: LocalizationMode

    var body: some View {
        ZStack {
            // AR View from the MultiSetAR folder
            MultiSetARView()
                .ignoresSafeArea()

            // Capture button
            VStack {
                Spacer()
                Button("Localize") {
                    MultiSet.shared.localize()
                }
                .padding()
            }
        }
        .onAppear {
            setupCallbacks()
        }
    }

    private func setupCallbacks() {
        sdkDelegate.onLocalizationSuccess = { result in
            print("Localized at: \(result.position)")
        }
    }
}
#endif
