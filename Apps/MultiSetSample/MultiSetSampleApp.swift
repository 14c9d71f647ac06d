// The sample app's entry point. It lives outside the package (an app target is an Xcode project's,
// not a Swift package's): README, "Open the sample in Xcode", adds it to a new iOS app target that
// links the package's `MultiSetSampleApp` library.
import MultiSetSampleApp
import SwiftUI

@main
struct MultiSetSample: App {
    init() {
        MultiSetSampleSetup.configure()
    }

    var body: some Scene {
        WindowGroup {
            LandingView()
        }
    }
}
