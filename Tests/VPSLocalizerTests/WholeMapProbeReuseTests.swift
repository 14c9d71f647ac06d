import Testing
import VPSFeatures
import VPSGeometry
import VPSImaging
import VPSTestSupport

@testable import VPSLocalizer
@testable import VPSMap
@testable import VPSSimulation

/// The competitor search's whole-map probe reuses the retrieval probe's lookups
/// (`CandidateSearch.probe`) for the features both look up: the candidates it gathers are those a
/// fresh lookup of every feature gives, in the same order.
@Suite struct WholeMapProbeReuseTests {
    @Test func reusedLookupsGatherTheSameCandidates() throws {
        let venue = Venue.generate(.aliasing, seed: 31, texelScale: 1.5)
        let map = try LocalizationMap(try LocalizerTests.buildMap(venue, seed: 31, every: 2.0))
        #expect(map.index != nil, "a map with an LSH index (the only kind whose lookups are kept)")
        let walk = Trajectory.generate(.walk, in: venue, duration: 20, seed: 7)
        let renderer = Renderer(venue: venue)
        let options = LocalizerOptions()
        for t in [3.0, 9.0, 15.0] {
            let camFromWorld = CameraPose(CameraAxes.cvPose(fromARKit: walk.worldFromCamera(at: t)).inverse)
            let image = renderer.render(camera: LocalizerTests.camera, camFromWorld: camFromWorld).gray
            let query = try QueryFeatures(
                [QueryFrame(image: image, camera: LocalizerTests.camera)], map: map, mode: options.mode)
            let search = CandidateSearch(
                query, map: map, mode: options.mode, hints: options.hints, keyframes: options.mode.retrievedKeyframes)
            let probe = try #require(search.probe)
            let looked = probe.rows[0].filter { $0 >= 0 }.count
            #expect(looked == min(options.mode.retrievalFeatures, query.frames[0].keypoints.count))
            // Every third feature "explained": those go first, so the probe mixes reused and new lookups.
            let explained = [Set(stride(from: 0, to: query.frames[0].keypoints.count, by: 3))]
            var twins = Correspondences(), others = Correspondences()
            var freshTwins = Correspondences(), freshOthers = Correspondences()
            RivalSearch.probeWholeMap(
                of: camFromWorld, query: query, map: map, mode: options.mode,
                threshold: options.pose.maxReprojectionError, explained: explained, probed: probe, twins: &twins,
                others: &others)
            RivalSearch.probeWholeMap(
                of: camFromWorld, query: query, map: map, mode: options.mode,
                threshold: options.pose.maxReprojectionError, explained: explained, twins: &freshTwins,
                others: &freshOthers)
            #expect(twins.count + others.count > 0, "t = \(t)")
            #expect(twins.pointIndices == freshTwins.pointIndices && twins.features == freshTwins.features)
            #expect(others.pointIndices == freshOthers.pointIndices && others.features == freshOthers.features)
        }
    }
}
