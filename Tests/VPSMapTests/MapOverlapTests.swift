import Foundation
import Testing
import VPSGeometry
import VPSTestSupport

@testable import VPSMap
@testable import VPSSimulation

@Suite(.serialized) struct MapOverlapTests {
    @Test func overlappingMapsAlignToTheTrueRelativePose() throws {
        // Two scans of the same room by two AR sessions: each map lives in its own session frame.
        let venue = Venue.generate(.room, seed: 12, texelScale: 1.5)
        let (folderA, venueFromA) = try MapBuilderTests.writeScan(venue, frames: 37, every: 2.0, seed: 12)
        let (folderB, venueFromB) = try MapBuilderTests.writeScan(venue, frames: 37, every: 2.0, seed: 13)
        defer {
            try? FileManager.default.removeItem(at: folderA)
            try? FileManager.default.removeItem(at: folderB)
        }
        var options = MapBuildOptions()
        options.neighborsPerFrame = 6
        let (a, _) = try MapBuilder.build(capturesIn: folderA, code: "MAP_A00000000001", name: "a", options: options)
        let (b, _) = try MapBuilder.build(capturesIn: folderB, code: "MAP_B00000000001", name: "b", options: options)
        let result = try MapOverlap.estimate(a, in: b)
        let truth = venueFromB.inverse * venueFromA
        let e = result.bFromA.error(to: truth)
        print(
            "map overlap: \(result.localizedKeyframes) keyframes localized, \(result.inliers)/\(result.pairs) pairs, "
                + "residual \(result.residualRMS * 1000) mm; error \(e.translation * 1000) mm, \(degrees(e.rotation))°")
        #expect(e.translation <= 0.02)
        #expect(degrees(e.rotation) <= 0.2)
    }

    @Test func mapsWithoutOverlapAreRefused() throws {
        let empty = MapData(
            code: "MAP_E", name: "e", featureConfig: FeatureConfigID(name: "orb-2000", version: 1), descriptorBytes: 32)
        #expect(throws: MapOverlap.OverlapError.insufficientOverlap(pairs: 0)) {
            try MapOverlap.estimate(empty, in: empty)
        }
        let sift = MapData(
            code: "MAP_S", name: "s", featureConfig: FeatureConfigID(name: "sift-4000", version: 1),
            descriptorBytes: 512)
        #expect(throws: MapOverlap.OverlapError.self) { try MapOverlap.estimate(empty, in: sift) }
    }
}
