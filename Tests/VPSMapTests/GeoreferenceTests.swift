import Testing
import VPSGeometry
import VPSTestSupport

@testable import VPSMap

@Suite struct GeoreferenceTests {
    let zurich = GeoCoordinate(latitude: 47.3769, longitude: 8.5417, altitude: 408)

    @Test func headingZeroMakesTheLeftHandedMapEastUpNorth() {
        let geo = Georeference(origin: zurich, headingDegrees: 0)
        // 100 m along +Z is 100 m north: latitude grows by about 100 / 111,200 m per degree.
        let north = geo.geo(fromMap: Vec3(0, 0, 100))
        #expect(abs((north.latitude - zurich.latitude) * 111_200 - 100) < 0.5)
        #expect(abs(north.longitude - zurich.longitude) < 1e-9)
        // Left-handed +X is east, so right-handed −X is east.
        let east = geo.geo(fromMap: Handedness.convertPosition(Vec3(100, 0, 0)))
        #expect(east.longitude > zurich.longitude)
        #expect(abs(east.latitude - zurich.latitude) < 1e-6)
        // +Y is up (curvature drops a 100 m offset by under a millimetre).
        #expect(abs(geo.geo(fromMap: Vec3(0, 10, 0)).altitude - 418) < 1e-6)
    }

    @Test func headingNinetyPointsPlusZEast() {
        let geo = Georeference(origin: zurich, headingDegrees: 90)
        let p = geo.geo(fromMap: Vec3(0, 0, 100))
        #expect(p.longitude > zurich.longitude)
        #expect(abs(p.latitude - zurich.latitude) < 1e-6)
    }

    @Test func roundTripsPositionsAndOrientations() {
        var rng = SplitMix64(testName: "Georeference.roundTrip")
        for _ in 0..<1000 {
            let geo = Georeference(
                origin: GeoCoordinate(
                    latitude: rng.uniform(-80...80), longitude: rng.uniform(-180...180),
                    altitude: rng.uniform(-100...3000)),
                headingDegrees: rng.uniform(-360...360))
            let p = rng.vector(scale: 500)
            #expect((geo.map(fromGeo: geo.geo(fromMap: p)) - p).norm < 1e-6)
            let q = rng.rotation()
            #expect(geo.mapOrientation(fromGeo: geo.geoOrientation(fromMap: q)).angle(to: q) < 1e-12)
        }
        #expect(Georeference(origin: zurich, headingDegrees: .nan).isValid == false)
    }
}
