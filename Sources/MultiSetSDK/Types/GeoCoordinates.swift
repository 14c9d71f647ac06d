/// A WGS-84 position: latitude and longitude in degrees, altitude in metres (SPEC §5.4).
public struct GeoCoordinates: Equatable, Sendable, Codable {
    /// Latitude in degrees, −90…90.
    public var latitude: Double
    /// Longitude in degrees, −180…180.
    public var longitude: Double
    /// Altitude in metres.
    public var altitude: Double

    /// Creates coordinates.
    public init(latitude: Double, longitude: Double, altitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    /// True unless all zero, non-finite, or out of range (|lat| ≤ 90, |lon| ≤ 180).
    public func isValid() -> Bool {
        guard latitude.isFinite, longitude.isFinite, altitude.isFinite else { return false }
        if latitude == 0 && longitude == 0 && altitude == 0 { return false }
        return abs(latitude) <= 90 && abs(longitude) <= 180
    }

    /// The `geoHint` form value, `"lat,lon,alt"`.
    public func toGeoHintString() -> String { "\(latitude),\(longitude),\(altitude)" }
}
