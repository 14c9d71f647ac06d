import Testing
import VPSTestSupport

@testable import VPSGeometry

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct GeodesyTests {
    let a = WGS84.semiMajorAxis
    /// b = a (1 − f) for WGS-84, to the micrometre (TR8350.2 table 3.3: 6 356 752.3142 m).
    let b = 6_356_752.314_245

    /// ECEF by an independent route: through the reduced (parametric) latitude β, tan β = (1 − f) tan φ, where the
    /// ellipsoid point is (a cos β, b sin β) in the meridian plane and the height is added along the normal.
    func ecefViaReducedLatitude(_ g: GeoCoordinate) -> Vec3 {
        let phi = g.latitude * .pi / 180
        let lambda = g.longitude * .pi / 180
        let beta = atan2((1 - WGS84.flattening) * sin(phi), cos(phi))
        let radial = a * cos(beta) + g.altitude * cos(phi)
        let axial = WGS84.semiMinorAxis * sin(beta) + g.altitude * sin(phi)
        return Vec3(radial * cos(lambda), radial * sin(lambda), axial)
    }

    /// Longitude difference wrapped to (−180, 180].
    func longitudeDifference(_ x: Double, _ y: Double) -> Double {
        var d = (x - y).truncatingRemainder(dividingBy: 360)
        if d > 180 { d -= 360 }
        if d <= -180 { d += 360 }
        return d
    }

    @Test func constants() {
        #expect(WGS84.semiMajorAxis == 6_378_137)
        #expect(WGS84.flattening == 1 / 298.257_223_563)
        #expect(abs(WGS84.semiMinorAxis - b) < 1e-6)
        #expect(abs(WGS84.eccentricitySquared - 0.006_694_379_990_14) < 1e-14)
        #expect(abs(WGS84.secondEccentricitySquared - 0.006_739_496_742_28) < 1e-14)
    }

    @Test func referenceECEFValues() {
        let cases: [(GeoCoordinate, Vec3)] = [
            (GeoCoordinate(latitude: 0, longitude: 0, altitude: 0), Vec3(a, 0, 0)),
            (GeoCoordinate(latitude: 0, longitude: 90, altitude: 0), Vec3(0, a, 0)),
            (GeoCoordinate(latitude: 0, longitude: 180, altitude: 100), Vec3(-a - 100, 0, 0)),
            (GeoCoordinate(latitude: 0, longitude: -90, altitude: -50), Vec3(0, -a + 50, 0)),
            (GeoCoordinate(latitude: 90, longitude: 0, altitude: 0), Vec3(0, 0, b)),
            (GeoCoordinate(latitude: -90, longitude: 0, altitude: 1000), Vec3(0, 0, -b - 1000)),
        ]
        for (geo, expected) in cases {
            let ecef = WGS84.ecef(from: geo)
            #expect(ecef.distance(to: expected) < 1e-6, "\(geo) → \(ecef), expected \(expected)")
        }
    }

    @Test func referenceGeodeticValues() {
        let cases: [(Vec3, GeoCoordinate)] = [
            (Vec3(a, 0, 0), GeoCoordinate(latitude: 0, longitude: 0, altitude: 0)),
            (Vec3(0, a + 10, 0), GeoCoordinate(latitude: 0, longitude: 90, altitude: 10)),
            (Vec3(0, 0, b), GeoCoordinate(latitude: 90, longitude: 0, altitude: 0)),
            (Vec3(0, 0, b + 20_200_000), GeoCoordinate(latitude: 90, longitude: 0, altitude: 20_200_000)),
            (Vec3(0, 0, -b - 30), GeoCoordinate(latitude: -90, longitude: 0, altitude: 30)),
            (Vec3(0, 0, -b + 30), GeoCoordinate(latitude: -90, longitude: 0, altitude: -30)),
        ]
        for (ecef, expected) in cases {
            let geo = WGS84.geodetic(fromECEF: ecef)
            #expect(abs(geo.latitude - expected.latitude) < 1e-12, "\(ecef) → \(geo)")
            #expect(abs(geo.longitude - expected.longitude) < 1e-12, "\(ecef) → \(geo)")
            #expect(abs(geo.altitude - expected.altitude) < 1e-6, "\(ecef) → \(geo)")
        }
    }

    @Test func zurichMatchesIndependentFormula() {
        let zurich = GeoCoordinate(latitude: 47.3769, longitude: 8.5417, altitude: 408)
        let ecef = WGS84.ecef(from: zurich)
        #expect(ecef.distance(to: ecefViaReducedLatitude(zurich)) < 1e-6)
        // Pinned to the millimetre (computed separately with the N(φ) formula in double precision).
        #expect(ecef.distance(to: Vec3(4_279_227.806, 642_719.222, 4_670_540.879)) < 1e-3)
        let back = WGS84.geodetic(fromECEF: ecef)
        #expect(abs(back.latitude - zurich.latitude) < 1e-11)
        #expect(abs(back.longitude - zurich.longitude) < 1e-11)
        #expect(abs(back.altitude - zurich.altitude) < 1e-7)
    }

    @Test func forwardMatchesIndependentFormulaEverywhere() {
        var rng = SplitMix64(testName: "GeodesyTests.forwardMatchesIndependentFormulaEverywhere")
        for _ in 0..<1000 {
            let geo = GeoCoordinate(
                latitude: rng.uniform(-90...90), longitude: rng.uniform(-180...180),
                altitude: rng.uniform(-10_000...100_000))
            #expect(WGS84.ecef(from: geo).distance(to: ecefViaReducedLatitude(geo)) < 1e-6)
        }
    }

    @Test func randomGeodeticRoundTrips() {
        var rng = SplitMix64(testName: "GeodesyTests.randomGeodeticRoundTrips")
        var worstAngle = 0.0
        var worstHeight = 0.0
        var worstPosition = 0.0
        for i in 0..<10_000 {
            // Mostly near the surface, every tenth point up to GNSS orbit height.
            let altitude = i % 10 == 0 ? rng.uniform(-50_000...25_000_000) : rng.uniform(-12_000...12_000)
            let geo = GeoCoordinate(
                latitude: rng.uniform(-90...90), longitude: rng.uniform(-180...180), altitude: altitude)
            let ecef = WGS84.ecef(from: geo)
            let back = WGS84.geodetic(fromECEF: ecef)
            let cosLatitude = cos(geo.latitude * .pi / 180)
            worstAngle = max(worstAngle, abs(back.latitude - geo.latitude))
            // Longitude is ill-defined at the poles; compare it as an east-west arc.
            worstAngle = max(worstAngle, abs(longitudeDifference(back.longitude, geo.longitude)) * cosLatitude)
            worstHeight = max(worstHeight, abs(back.altitude - geo.altitude))
            worstPosition = max(worstPosition, WGS84.ecef(from: back).distance(to: ecef))
        }
        #expect(worstAngle < 1e-9)
        #expect(worstHeight < 1e-6)
        #expect(worstPosition < 1e-6)
    }

    @Test func randomECEFRoundTripsIncludingPolarAxis() {
        var rng = SplitMix64(testName: "GeodesyTests.randomECEFRoundTripsIncludingPolarAxis")
        var worst = 0.0
        for i in 0..<2000 {
            let radius = rng.uniform(6_300_000...30_000_000)
            var p = radius * rng.unitVector()
            if i % 4 == 0 {  // right on or next to the polar axis
                p.x *= 1e-9
                p.y = i % 8 == 0 ? 0 : p.y * 1e-12
            }
            worst = max(worst, WGS84.ecef(from: WGS84.geodetic(fromECEF: p)).distance(to: p))
        }
        #expect(worst < 1e-6)
    }

    @Test func nearPoleLatitudes() {
        for latitude in [90.0, 90 - 1e-12, 90 - 1e-8, 89.999_999, -90 + 1e-10] {
            let geo = GeoCoordinate(latitude: latitude, longitude: 33, altitude: 250)
            let back = WGS84.geodetic(fromECEF: WGS84.ecef(from: geo))
            #expect(abs(back.latitude - latitude) < 1e-9, "latitude \(latitude) → \(back)")
            #expect(abs(back.altitude - 250) < 1e-6, "latitude \(latitude) → \(back)")
        }
    }

    @Test func earthCentreIsHandled() {
        let geo = WGS84.geodetic(fromECEF: .zero)
        #expect(geo.isFinite)
        #expect(abs(geo.latitude) <= 90)
        #expect(WGS84.ecef(from: geo).norm < 1e-6)
    }

    @Test func tangentFrameAxes() {
        let equator = LocalTangentFrame(anchor: GeoCoordinate(latitude: 0, longitude: 0, altitude: 0))
        #expect(equator.east.distance(to: Vec3(0, 1, 0)) < 1e-15)
        #expect(equator.north.distance(to: Vec3(0, 0, 1)) < 1e-15)
        #expect(equator.up.distance(to: Vec3(1, 0, 0)) < 1e-15)
        let pole = LocalTangentFrame(anchor: GeoCoordinate(latitude: 90, longitude: 0, altitude: 0))
        #expect(pole.east.distance(to: Vec3(0, 1, 0)) < 1e-15)
        #expect(pole.north.distance(to: Vec3(-1, 0, 0)) < 1e-15)
        #expect(pole.up.distance(to: Vec3(0, 0, 1)) < 1e-15)

        var rng = SplitMix64(testName: "GeodesyTests.tangentFrameAxes")
        for _ in 0..<100 {
            let frame = LocalTangentFrame(
                anchor: GeoCoordinate(latitude: rng.uniform(-90...90), longitude: rng.uniform(-180...180)))
            let r = frame.ecefFromENURotation
            #expect((r.transposed * r - .identity).frobeniusNorm < 1e-14)
            #expect(abs(r.determinant - 1) < 1e-14)
            // Up is the ellipsoid normal: the gradient of x²/a² + y²/a² + z²/b² at the anchor.
            let p = frame.anchorECEF
            let normal = Vec3(p.x / (a * a), p.y / (a * a), p.z / (b * b)).normalized
            #expect(frame.up.distance(to: normal) < 1e-12)
            let enuFromECEF = frame.enuFromECEF
            let ecefFromENU = frame.ecefFromENU
            let v = rng.vector(scale: 1000)
            #expect(ecefFromENU.transform(v).distance(to: frame.ecef(fromENU: v)) < 1e-6)
            #expect(enuFromECEF.transform(frame.ecef(fromENU: v)).distance(to: v) < 1e-6)
        }
    }

    @Test func pointsNorthEastAndAbove() {
        let anchor = GeoCoordinate(latitude: 47.3769, longitude: 8.5417, altitude: 408)
        let frame = LocalTangentFrame(anchor: anchor)
        #expect(frame.enu(from: anchor).norm < 1e-9)

        let above = frame.enu(
            from: GeoCoordinate(latitude: anchor.latitude, longitude: anchor.longitude, altitude: 508))
        #expect(above.distance(to: Vec3(0, 0, 100)) < 1e-6)

        // Δφ = 100 m / (M + h) north: the chord is 100 m plus ½ M′ Δφ² ≈ 7.9 µm (M grows with latitude,
        // M′ = 3 M e² sin φ cos φ / (1 − e² sin² φ)), and it dips d² / 2(M + h) ≈ 0.79 mm below the plane.
        let phi = anchor.latitude * .pi / 180
        let meridianRadius = WGS84.meridianRadius(latitude: phi)
        let radius = meridianRadius + anchor.altitude
        let distance = 100.0
        let deltaPhi = distance / radius
        let north = GeoCoordinate(
            latitude: anchor.latitude + deltaPhi * 180 / .pi, longitude: anchor.longitude, altitude: anchor.altitude)
        let enu = frame.enu(from: north)
        let e2 = WGS84.eccentricitySquared
        let radiusRate = 3 * meridianRadius * e2 * sin(phi) * cos(phi) / (1 - e2 * sin(phi) * sin(phi))
        let drop = distance * distance / (2 * radius)
        #expect(abs(enu.x) < 1e-9)
        #expect(abs(enu.y - (distance + radiusRate * deltaPhi * deltaPhi / 2)) < 1e-8)
        #expect(abs(enu.z + drop) < 1e-8)
        #expect(drop > 7.8e-4 && drop < 7.9e-4)
        #expect(enu.distance(to: Vec3(0, 100, 0)) < 1e-3)

        // 100 m east along the parallel (radius N cos φ): the chord bends towards the axis, i.e. down and north.
        let parallelRadius = (WGS84.primeVerticalRadius(latitude: phi) + anchor.altitude) * cos(phi)
        let east = GeoCoordinate(
            latitude: anchor.latitude, longitude: anchor.longitude + distance / parallelRadius * 180 / .pi,
            altitude: anchor.altitude)
        let enuEast = frame.enu(from: east)
        let sag = distance * distance / (2 * parallelRadius)
        #expect(abs(enuEast.x - distance) < 1e-6)
        #expect(abs(enuEast.y - sag * sin(phi)) < 1e-6)
        #expect(abs(enuEast.z + sag * cos(phi)) < 1e-6)
    }

    @Test func localRoundTrips() {
        var rng = SplitMix64(testName: "GeodesyTests.localRoundTrips")
        for _ in 0..<500 {
            let anchor = GeoCoordinate(
                latitude: rng.uniform(-89.9...89.9), longitude: rng.uniform(-180...180),
                altitude: rng.uniform(-100...3000))
            let frame = LocalTangentFrame(anchor: anchor)
            let enu = rng.vector(scale: 10_000)
            let geo = frame.geo(fromENU: enu)
            #expect(frame.enu(from: geo).distance(to: enu) < 1e-6)
            let ecef = frame.ecef(fromENU: enu)
            #expect(frame.enu(fromECEF: ecef).distance(to: enu) < 1e-6)
            let yUp = frame.yUp(from: geo)
            #expect(abs(frame.geo(fromYUp: yUp).altitude - geo.altitude) < 1e-6)
            #expect(WGS84.ecef(from: frame.geo(fromYUp: yUp)).distance(to: ecef) < 1e-6)
        }
    }

    @Test func yUpConvention() {
        let enu = Vec3(1, 2, 3)
        #expect(LocalTangentFrame.yUp(fromENU: enu) == Vec3(1, 3, -2))
        #expect(LocalTangentFrame.enu(fromYUp: Vec3(1, 3, -2)) == enu)
        // East, up, south: right-handed, so x × y = z holds for the mapped basis.
        let x = LocalTangentFrame.yUp(fromENU: Vec3(1, 0, 0))
        let y = LocalTangentFrame.yUp(fromENU: Vec3(0, 0, 1))
        let z = LocalTangentFrame.yUp(fromENU: Vec3(0, -1, 0))
        #expect(x == Vec3(1, 0, 0) && y == Vec3(0, 1, 0) && z == Vec3(0, 0, 1))
        #expect(x.cross(y) == z)
        // The mapping is the proper rotation `yUpFromENURotation`.
        var rng = SplitMix64(testName: "GeodesyTests.yUpConvention")
        let rotation = LocalTangentFrame.yUpFromENURotation
        #expect(abs(rotation.norm - 1) < 1e-15)
        #expect(abs(rotation.matrix.determinant - 1) < 1e-15)
        for _ in 0..<20 {
            let v = rng.vector(scale: 100)
            #expect(rotation.act(v).distance(to: LocalTangentFrame.yUp(fromENU: v)) < 1e-12)
            #expect(LocalTangentFrame.enu(fromYUp: LocalTangentFrame.yUp(fromENU: v)) == v)
        }
    }
}
