import Testing
import VPSFeatures
import VPSGeometry
import VPSImaging
import VPSTestSupport

@testable import VPSLocalizer
@testable import VPSMap
@testable import VPSSimulation

/// A query's features extracted once and reused for the next map (`QueryFeatureCache`), and a rig's
/// frames extracted in parallel: the answers are exactly those of a query extracted afresh.
@Suite(.serialized) struct QueryFeatureCacheTests {
    static let camera = LocalizerTests.camera

    /// Pose, confidence, inliers and margin: what a caller reads of an outcome.
    static func same(_ a: LocalizationOutcome, _ b: LocalizationOutcome) -> Bool {
        a.camFromMap == b.camFromMap && a.confidence == b.confidence && a.inliers == b.inliers
            && a.inlierMargin == b.inlierMargin && a.failure == b.failure
    }

    @Test func aCachedQueryAnswersAsAFreshOneAndExtractsOncePerConfiguration() throws {
        let venue = Venue.generate(.room, seed: 21, texelScale: 1.5)
        let map = try LocalizationMap(try LocalizerTests.buildMap(venue, seed: 21, every: 2.0))
        let walk = Trajectory.generate(.walk, in: venue, duration: 20, seed: 99)
        let renderer = Renderer(venue: venue)
        let images = [2.5, 8.5].map { t in
            renderer.render(
                camera: Self.camera,
                camFromWorld: CameraPose(CameraAxes.cvPose(fromARKit: walk.worldFromCamera(at: t)).inverse)
            ).gray
        }
        let cache = QueryFeatureCache()
        let fresh = try Localizer.localize(image: images[0], camera: Self.camera, map: map)
        // The same frame twice (two maps of a set): one extraction, the same answer both times.
        for _ in 0..<2 {
            let cached = try Localizer.localize(image: images[0], camera: Self.camera, map: map, features: cache)
            #expect(Self.same(cached, fresh))
        }
        #expect(cache.extractions == 1)
        // VPS-2 extracts more features: another configuration, another extraction.
        var vps2 = LocalizerOptions()
        vps2.mode = .vps2
        let deep = try Localizer.localize(image: images[0], camera: Self.camera, map: map, options: vps2)
        let deepCached = try Localizer.localize(
            image: images[0], camera: Self.camera, map: map, options: vps2, features: cache)
        #expect(Self.same(deepCached, deep))
        #expect(cache.extractions == 2)
        // Another image handed to the same cache is extracted afresh, never answered from the first.
        let other = try Localizer.localize(image: images[1], camera: Self.camera, map: map, features: cache)
        #expect(Self.same(other, try Localizer.localize(image: images[1], camera: Self.camera, map: map)))
        #expect(cache.extractions == 3)
        // (The coarse map — a scan every 2 s — answers the second view, not the first.)
        #expect(other.camFromMap != fresh.camFromMap)
    }

    @Test func aRigsFramesExtractedInParallelAnswerTheSameEveryTime() throws {
        let venue = Venue.generate(.room, seed: 21, texelScale: 1.5)
        let map = try LocalizationMap(try LocalizerTests.buildMap(venue, seed: 21, every: 2.0))
        let walk = Trajectory.generate(.walk, in: venue, duration: 20, seed: 99)
        let renderer = Renderer(venue: venue)
        let poses = [4.0, 4.5, 5.0].map {
            CameraPose(CameraAxes.cvPose(fromARKit: walk.worldFromCamera(at: $0)).inverse)
        }
        let images = poses.map { renderer.render(camera: Self.camera, camFromWorld: $0).gray }
        let cameras = [Camera](repeating: Self.camera, count: 3)
        let first = try Localizer.localize(rig: images, cameras: cameras, camFromRig: poses, map: map)
        let cache = QueryFeatureCache()
        for _ in 0..<2 {
            let again = try Localizer.localize(
                rig: images, cameras: cameras, camFromRig: poses, map: map, features: cache)
            #expect(again.rigFromMap == first.rigFromMap && again.confidence == first.confidence)
            #expect(again.inliers == first.inliers && again.features == first.features)
        }
        #expect(cache.extractions == 1)
        #expect(first.rigFromMap != nil)
    }
}
