#if canImport(SwiftUI) && canImport(ARKit) && os(iOS)
import CoreLocation
import Foundation
import MultiSetSDK

/// GPS for the SDK's geo hint and the sample's GPS indicator (SPEC §4.5, §12): the newest Core Location
/// fix as a `GeoFix`. Create it on the main thread (Core Location delivers updates there).
@available(iOS 17.0, *)
public final class CoreLocationProvider: NSObject, LocationProvider, CLLocationManagerDelegate, @unchecked Sendable {
    /// The app's GPS source: `MultiSet.shared`'s location provider and the GPS indicator's source.
    @MainActor public static let shared = CoreLocationProvider()

    private let manager = CLLocationManager()
    private let lock = NSLock()
    private var fix: GeoFix?

    /// A provider; updates start with `start()`.
    public override init() {
        super.init()
        manager.delegate = self
        manager.desiredAccuracy = kCLLocationAccuracyBest
    }

    public var latest: GeoFix? { lock.withLock { fix } }

    public func start() {
        DispatchQueue.main.async { [manager] in
            manager.requestWhenInUseAuthorization()
            manager.startUpdatingLocation()
        }
    }

    public func stop() {
        DispatchQueue.main.async { [manager] in manager.stopUpdatingLocation() }
    }

    public func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        guard let l = locations.last, l.horizontalAccuracy >= 0 else { return }
        let newFix = GeoFix(
            latitude: l.coordinate.latitude, longitude: l.coordinate.longitude, altitude: l.altitude,
            accuracy: l.horizontalAccuracy, timestamp: l.timestamp)
        lock.withLock { fix = newFix }
    }
}
#endif
