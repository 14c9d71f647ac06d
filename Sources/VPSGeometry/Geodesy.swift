#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A position on the WGS-84 ellipsoid: geodetic latitude and longitude in degrees, ellipsoidal height in metres.
///
/// Latitude is positive north and lies in [−90, 90]; longitude is positive east and lies in (−180, 180] when
/// produced by `WGS84.geodetic(fromECEF:)`. The altitude is the height above the ellipsoid along its normal
/// (what GNSS receivers report before a geoid model is applied), not the height above mean sea level.
public struct GeoCoordinate: Equatable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// Geodetic latitude in degrees, positive north.
    public var latitude: Double
    /// Longitude in degrees, positive east of Greenwich.
    public var longitude: Double
    /// Ellipsoidal height in metres.
    public var altitude: Double

    /// Builds a coordinate; the values are stored as given (no wrapping or clamping).
    ///
    /// - Parameters:
    ///   - latitude: geodetic latitude in degrees.
    ///   - longitude: longitude in degrees.
    ///   - altitude: ellipsoidal height in metres.
    @inlinable public init(latitude: Double, longitude: Double, altitude: Double = 0) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    /// True when every component is finite.
    @inlinable public var isFinite: Bool { latitude.isFinite && longitude.isFinite && altitude.isFinite }

    public var description: String { "GeoCoordinate(lat: \(latitude)°, lon: \(longitude)°, h: \(altitude) m)" }
}

/// The WGS-84 reference ellipsoid and conversions between geodetic coordinates and Earth-centred, Earth-fixed
/// (ECEF) Cartesian coordinates.
///
/// ECEF: origin at the Earth's centre of mass, +X through (0° N, 0° E), +Z through the north pole, +Y completing
/// a right-handed frame (through 0° N, 90° E); metres. Constants from NIMA TR8350.2, "Department of Defense World
/// Geodetic System 1984", 3rd edition (2000), table 3.1.
public enum WGS84 {
    /// Semi-major (equatorial) axis `a`, metres.
    public static let semiMajorAxis = 6_378_137.0
    /// Flattening `f = (a − b) / a`.
    public static let flattening = 1 / 298.257_223_563
    /// Semi-minor (polar) axis `b = a (1 − f)`, metres (about 6 356 752.314 m).
    public static let semiMinorAxis = semiMajorAxis * (1 - flattening)
    /// First eccentricity squared `e² = f (2 − f)`.
    public static let eccentricitySquared = flattening * (2 - flattening)
    /// Second eccentricity squared `e′² = e² / (1 − e²)`.
    public static let secondEccentricitySquared = eccentricitySquared / (1 - eccentricitySquared)

    /// The prime-vertical radius of curvature `N(φ) = a / √(1 − e² sin² φ)`.
    ///
    /// - Parameter latitude: geodetic latitude in radians.
    /// - Returns: the radius in metres.
    @inlinable public static func primeVerticalRadius(latitude: Double) -> Double {
        let s = sin(latitude)
        return semiMajorAxis / (1 - eccentricitySquared * s * s).squareRoot()
    }

    /// The meridian radius of curvature `M(φ) = a (1 − e²) / (1 − e² sin² φ)^(3/2)`.
    ///
    /// - Parameter latitude: geodetic latitude in radians.
    /// - Returns: the radius in metres.
    @inlinable public static func meridianRadius(latitude: Double) -> Double {
        let s = sin(latitude)
        let w = 1 - eccentricitySquared * s * s
        return semiMajorAxis * (1 - eccentricitySquared) / (w * w.squareRoot())
    }

    /// Converts geodetic coordinates to ECEF.
    ///
    /// `X = (N + h) cos φ cos λ`, `Y = (N + h) cos φ sin λ`, `Z = (N (1 − e²) + h) sin φ` (TR8350.2 eq. 4-14).
    ///
    /// - Parameter geo: latitude and longitude in degrees, ellipsoidal height in metres.
    /// - Returns: the ECEF position in metres.
    public static func ecef(from geo: GeoCoordinate) -> Vec3 {
        let phi = radians(geo.latitude)
        let lambda = radians(geo.longitude)
        let n = primeVerticalRadius(latitude: phi)
        let cosPhi = cos(phi)
        let horizontal = (n + geo.altitude) * cosPhi
        return Vec3(
            horizontal * cos(lambda), horizontal * sin(lambda),
            (n * (1 - eccentricitySquared) + geo.altitude) * sin(phi))
    }

    /// Converts an ECEF position to geodetic coordinates.
    ///
    /// Uses Bowring's parametric-latitude iteration (B. R. Bowring, "Transformation from spatial to geographical
    /// coordinates", Survey Review 23(181):323–327, 1976): starting from the reduced latitude
    /// `β = atan2(z, (1 − f) p)` with `p = √(x² + y²)`, repeat
    /// `φ = atan2(z + e′² b sin³ β, p − e² a cos³ β)` and `β = atan2((1 − f) sin φ, cos φ)`. The iteration
    /// converges cubically; one step is already at the 0.1 mm level on the Earth's surface, and the loop stops when
    /// `β` no longer changes (at most a few steps, also for orbit altitudes). The height then comes from
    /// `h = p cos φ + z sin φ − a √(1 − e² sin² φ)`, which stays well conditioned at the poles and on the equator
    /// (unlike `p / cos φ − N`).
    ///
    /// Round trips through `ecef(from:)` agree to better than 1e-9° and 1e-6 m for every point outside the
    /// ellipsoid's evolute (a region within about 43 km of the Earth's centre, where the geodetic latitude is not
    /// unique; there one of the valid solutions is returned, the equatorial one at the centre itself).
    /// At the poles the longitude is undefined and returned as `atan2(y, x)` (0 on the axis).
    ///
    /// - Parameter p: ECEF position in metres.
    /// - Returns: latitude and longitude in degrees, ellipsoidal height in metres. Non-finite input gives
    ///   non-finite output.
    /// - Complexity: O(1); at most 8 iterations, 2–3 in practice.
    public static func geodetic(fromECEF p: Vec3) -> GeoCoordinate {
        let a = semiMajorAxis
        let b = semiMinorAxis
        let e2 = eccentricitySquared
        let horizontal = (p.x * p.x + p.y * p.y).squareRoot()
        let z = p.z
        var beta = atan2(z, (1 - flattening) * horizontal)
        var phi = 0.0
        for _ in 0..<8 {
            let sinBeta = sin(beta)
            let cosBeta = cos(beta)
            // Inside the evolute the denominator can turn negative; clamping keeps |φ| ≤ 90°.
            let denominator = max(horizontal - e2 * a * cosBeta * cosBeta * cosBeta, 0)
            phi = atan2(z + secondEccentricitySquared * b * sinBeta * sinBeta * sinBeta, denominator)
            let next = atan2((1 - flattening) * sin(phi), cos(phi))
            if abs(next - beta) <= 1e-15 { break }
            beta = next
        }
        let sinPhi = sin(phi)
        let height = horizontal * cos(phi) + z * sinPhi - a * (1 - e2 * sinPhi * sinPhi).squareRoot()
        return GeoCoordinate(latitude: degrees(phi), longitude: degrees(atan2(p.y, p.x)), altitude: height)
    }
}

/// A local East-North-Up (ENU) tangent frame anchored at a geodetic position.
///
/// ENU: origin at the anchor, +x east, +y north, +z up along the ellipsoid normal; metres. The frame is planar,
/// so a point on the ellipsoid 100 m north of the anchor sits about 0.8 mm below the x–y plane (drop
/// ≈ d² / 2R). Rotation matrix from ECEF to ENU (rows east, north, up), e.g. EPSG Guidance Note 7-2 §4.1.2:
///
///     east  = (−sin λ,        cos λ,        0    )
///     north = (−sin φ cos λ,  −sin φ sin λ, cos φ)
///     up    = ( cos φ cos λ,   cos φ sin λ, sin φ)
///
/// The map frame of the project is "Y-up ENU". Two axis orders carry +Y up: (x East, y Up, z North) is
/// left-handed (it is the Unity-style frame), while (x East, y Up, z South) is right-handed. `yUp(fromENU:)` and
/// `enu(fromYUp:)` use the right-handed one: `(x, y, z) = (east, up, −north)`, a proper rotation of ENU by −90°
/// about the east axis (`yUpFromENURotation`). Negate z of a Y-up point to get the left-handed East-Up-North one.
public struct LocalTangentFrame: Equatable, Sendable {
    /// The geodetic position of the frame's origin.
    public let anchor: GeoCoordinate
    /// The ECEF position of the frame's origin, metres.
    public let anchorECEF: Vec3
    /// `ecefFromENU` rotation: its columns are the east, north and up unit vectors in ECEF.
    public let ecefFromENURotation: Mat3

    /// Builds the ENU frame at `anchor`.
    ///
    /// - Parameter anchor: the origin; latitude and longitude in degrees, ellipsoidal height in metres.
    public init(anchor: GeoCoordinate) {
        self.anchor = anchor
        anchorECEF = WGS84.ecef(from: anchor)
        let phi = radians(anchor.latitude)
        let lambda = radians(anchor.longitude)
        let sinPhi = sin(phi)
        let cosPhi = cos(phi)
        let sinLambda = sin(lambda)
        let cosLambda = cos(lambda)
        let east = Vec3(-sinLambda, cosLambda, 0)
        let north = Vec3(-sinPhi * cosLambda, -sinPhi * sinLambda, cosPhi)
        let up = Vec3(cosPhi * cosLambda, cosPhi * sinLambda, sinPhi)
        ecefFromENURotation = Mat3(columns: east, north, up)
    }

    /// `enuFromECEF` rotation: its rows are the east, north and up unit vectors in ECEF.
    @inlinable public var enuFromECEFRotation: Mat3 { ecefFromENURotation.transposed }

    /// The rigid transform taking ENU coordinates to ECEF (`p_ecef = R p_enu + anchorECEF`).
    public var ecefFromENU: Rigid3 { Rigid3(rotationMatrix: ecefFromENURotation, translation: anchorECEF) }

    /// The rigid transform taking ECEF coordinates to ENU.
    public var enuFromECEF: Rigid3 { ecefFromENU.inverse }

    /// The unit east vector in ECEF.
    @inlinable public var east: Vec3 { ecefFromENURotation.column(0) }
    /// The unit north vector in ECEF.
    @inlinable public var north: Vec3 { ecefFromENURotation.column(1) }
    /// The unit up vector (ellipsoid normal) in ECEF.
    @inlinable public var up: Vec3 { ecefFromENURotation.column(2) }

    /// Converts an ECEF position to this frame's ENU coordinates.
    ///
    /// - Parameter ecef: ECEF position in metres.
    /// - Returns: (east, north, up) in metres relative to the anchor.
    @inlinable public func enu(fromECEF ecef: Vec3) -> Vec3 {
        ecefFromENURotation.transposed * (ecef - anchorECEF)
    }

    /// Converts ENU coordinates of this frame to an ECEF position.
    ///
    /// - Parameter enu: (east, north, up) in metres relative to the anchor.
    /// - Returns: ECEF position in metres.
    @inlinable public func ecef(fromENU enu: Vec3) -> Vec3 {
        ecefFromENURotation * enu + anchorECEF
    }

    /// Converts a geodetic position to this frame's ENU coordinates.
    ///
    /// - Parameter geo: latitude and longitude in degrees, ellipsoidal height in metres.
    /// - Returns: (east, north, up) in metres relative to the anchor.
    public func enu(from geo: GeoCoordinate) -> Vec3 {
        enu(fromECEF: WGS84.ecef(from: geo))
    }

    /// Converts ENU coordinates of this frame to a geodetic position.
    ///
    /// - Parameter enu: (east, north, up) in metres relative to the anchor.
    /// - Returns: latitude and longitude in degrees, ellipsoidal height in metres.
    public func geo(fromENU enu: Vec3) -> GeoCoordinate {
        WGS84.geodetic(fromECEF: ecef(fromENU: enu))
    }

    /// Rotates a direction (no translation) from ENU to ECEF.
    @inlinable public func ecefDirection(fromENU direction: Vec3) -> Vec3 { ecefFromENURotation * direction }

    /// Rotates a direction (no translation) from ECEF to ENU.
    @inlinable public func enuDirection(fromECEF direction: Vec3) -> Vec3 {
        ecefFromENURotation.transposed * direction
    }

    /// `yUpFromENU`: the proper rotation taking ENU to the right-handed Y-up frame (x east, y up, z south);
    /// −90° about the east axis.
    public static let yUpFromENURotation = Quaternion(x: -(0.5).squareRoot(), y: 0, z: 0, w: (0.5).squareRoot())

    /// Converts ENU coordinates to the right-handed Y-up map frame: `(east, north, up) ↦ (east, up, −north)`.
    ///
    /// - Parameter enu: (east, north, up).
    /// - Returns: (x, y, z) = (east, up, south).
    @inlinable public static func yUp(fromENU enu: Vec3) -> Vec3 { Vec3(enu.x, enu.z, -enu.y) }

    /// Converts right-handed Y-up map coordinates to ENU: `(x, y, z) ↦ (x, −z, y)`; inverse of `yUp(fromENU:)`.
    ///
    /// - Parameter yUp: (x, y, z) = (east, up, south).
    /// - Returns: (east, north, up).
    @inlinable public static func enu(fromYUp yUp: Vec3) -> Vec3 { Vec3(yUp.x, -yUp.z, yUp.y) }

    /// Converts a geodetic position to this frame's right-handed Y-up coordinates.
    ///
    /// - Parameter geo: latitude and longitude in degrees, ellipsoidal height in metres.
    /// - Returns: (east, up, south) in metres relative to the anchor.
    public func yUp(from geo: GeoCoordinate) -> Vec3 { Self.yUp(fromENU: enu(from: geo)) }

    /// Converts this frame's right-handed Y-up coordinates to a geodetic position.
    ///
    /// - Parameter yUp: (east, up, south) in metres relative to the anchor.
    /// - Returns: latitude and longitude in degrees, ellipsoidal height in metres.
    public func geo(fromYUp yUp: Vec3) -> GeoCoordinate { geo(fromENU: Self.enu(fromYUp: yUp)) }
}
