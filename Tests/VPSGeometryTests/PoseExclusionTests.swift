import Foundation
import Testing
import VPSTestSupport

@testable import VPSGeometry

@Suite struct PoseExclusionTests {
    @Test func regionIsNearInPositionAndInRotation() {
        let pose = CameraPose(rotation: .identity, translation: Vec3(0, 0, 0))
        let region = PoseExclusion(around: pose, positionMeters: 2, rotationDegrees: 20)
        #expect(region.contains(pose))
        #expect(region.contains(CameraPose(rotation: .identity, translation: Vec3(1.9, 0, 0))))
        #expect(!region.contains(CameraPose(rotation: .identity, translation: Vec3(2.1, 0, 0))))
        let turned = CameraPose(
            rotation: Quaternion(axis: Vec3(0, 1, 0), angle: 25 * .pi / 180).matrix, translation: Vec3(0, 0, 0))
        #expect(!region.contains(turned))
    }

    /// entry-P10's 0006.jpg against a map of every second image (`RansacTests`): 56 of its 323 matches
    /// fit the true pose, 45 a pose 12 m along the façade's bays. With the true pose's region
    /// excluded, the search (3,000 draws: the twin holds 14 % of the matches) returns a second explanation outside
    /// the region, never a pose inside it.
    @Test func excludingTheTruePoseReturnsOnlyDistinctPoses() throws {
        let problem = try RecordedPnP(contentsOf: RansacTests.facade)
        var options = AbsolutePoseOptions()
        options.ransac.maxIterations = 3_000
        options.refinementIterations = 5
        options.excluded = PoseExclusion(around: problem.truth, positionMeters: 2, rotationDegrees: 20)
        let result = estimateAbsolutePose(
            pixels: problem.pixels, points: problem.points, camera: problem.camera, options: options)
        let pose = try #require(result.camFromWorld)
        let e = pose.error(to: problem.truth)
        #expect(e.positionMeters >= 2 || e.rotationDegrees >= 20)
        #expect(result.inlierCount >= 30)
        // Without the exclusion the same search returns the true pose (without SPRT: with it, the
        // default seed is one of those that end on the shifted pose, `RansacTests`).
        options.excluded = nil
        options.ransac.useSPRT = false
        let plain = estimateAbsolutePose(
            pixels: problem.pixels, points: problem.points, camera: problem.camera, options: options)
        #expect(try #require(plain.camFromWorld).error(to: problem.truth).positionMeters < 0.3)
    }
}
