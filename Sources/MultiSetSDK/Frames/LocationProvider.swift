import Foundation

/// One GPS fix (SPEC §4.5).
public struct GeoFix: Sendable, Equatable {
    /// Degrees.
    public var latitude: Double
    /// Degrees.
    public var longitude: Double
    /// Metres.
    public var altitude: Double
    /// Horizontal accuracy in metres.
    public var accuracy: Double
    /// When the fix was taken (wall clock).
    public var timestamp: Date

    /// Creates a fix.
    public init(latitude: Double, longitude: Double, altitude: Double, accuracy: Double, timestamp: Date) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.accuracy = accuracy
        self.timestamp = timestamp
    }

    /// The fix as ``GeoCoordinates``.
    public var coordinates: GeoCoordinates {
        GeoCoordinates(latitude: latitude, longitude: longitude, altitude: altitude)
    }
}

/// A GPS source (CoreLocation on Apple platforms); the SDK reads `latest` at run start (SPEC §12).
public protocol LocationProvider: AnyObject {
    /// Starts updates.
    func start()
    /// Stops updates.
    func stop()
    /// The newest fix, if any.
    var latest: GeoFix? { get }
}
