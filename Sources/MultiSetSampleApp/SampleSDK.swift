#if canImport(SwiftUI) && canImport(ARKit) && os(iOS)
import Foundation
import MultiSetSDK

/// The SDK instance the sample screens drive.
///
/// `MultiSet.shared` runs on the live environment, which has no image codec, so it can only send frames
/// that are already upright JPEGs within 960 px; ARKit delivers 1920×1440 sensor images, often in
/// portrait. The sample therefore uses one instance with a Core Graphics codec (SPEC §3.2, §4.3–4.4).
@available(iOS 17.0, *)
public enum SampleSDK {
    /// The instance every sample screen uses, with the device's GPS as its location provider.
    public static let shared: MultiSet = {
        let sdk = MultiSet(environment: MultiSetEnvironment(imageCodec: CoreGraphicsImageCodec()))
        sdk.setLocationProvider(location)
        return sdk
    }()

    /// The GPS source (also read by the GPS indicator).
    public static let location = CoreLocationProvider()
}
#endif
