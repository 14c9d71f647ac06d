import Testing
import VPSFeatures
import VPSGeometry
import VPSImaging
import VPSTestSupport

@testable import VPSLocalizer
@testable import VPSMap
@testable import VPSSimulation

/// The rival search's subsets, the mirror search and the rivals' verification run concurrently
/// (`RivalSearch`, `Localizer.verifiedComparison`); each is seeded and collected in order, so an
/// answer's evidence — competitor, margin, confidence — is the same whatever the threads' timing.
@Suite(.serialized) struct ParallelRivalSearchTests {
    @Test func aTwinRoomsRivalIsTheSameOnEveryRun() throws {
        // Twin rooms: the rival search finds the other room, so its subsets and verification all work.
        let venue = Venue.generate(.aliasing, seed: 31, texelScale: 1.5)
        let map = try LocalizationMap(try LocalizerTests.buildMap(venue, seed: 31, every: 2.0))
        let walk = Trajectory.generate(.walk, in: venue, duration: 20, seed: 7)
        let renderer = Renderer(venue: venue)
        var withRival = 0
        for t in [3.0, 9.0, 15.0] {
            let image = renderer.render(
                camera: LocalizerTests.camera,
                camFromWorld: CameraPose(CameraAxes.cvPose(fromARKit: walk.worldFromCamera(at: t)).inverse)
            ).gray
            let first = try Localizer.localize(image: image, camera: LocalizerTests.camera, map: map)
            if first.competitorInliers > 0 { withRival += 1 }
            for _ in 0..<3 {
                let again = try Localizer.localize(image: image, camera: LocalizerTests.camera, map: map)
                #expect(QueryFeatureCacheTests.same(again, first))
                #expect(again.competitorInliers == first.competitorInliers)
            }
        }
        // The views are in a twin room: at least one query meets its twin.
        #expect(withRival >= 1)
    }
}
