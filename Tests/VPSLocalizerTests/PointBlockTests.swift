import Foundation
import Testing
import VPSFeatures
import VPSGeometry
import VPSTestSupport

@testable import VPSLocalizer
@testable import VPSMap
@testable import VPSSimulation

/// `ProjectionMatching.visiblePoints` skips whole runs of points (`PointBlock`) that lie behind the
/// camera or beyond their descriptors' reach: it must return exactly the points, in the order, that
/// testing every point gives.
@Suite struct PointBlockTests {
    /// The point-by-point scan `visiblePoints` did before blocks.
    static func everyPoint(_ matching: ProjectionMatching, pose: CameraPose, margin: Double) -> [Int32] {
        let camera = matching.camera, map = matching.map
        let width = Double(camera.width), height = Double(camera.height)
        let minCos = cos(matching.maxViewAngleDegrees * .pi / 180)
        var visible: [Int32] = []
        for p in 0..<map.data.pointCount {
            let c = pose.transform(map.data.positions[p])
            guard c.z > 0.05, let u = camera.project(c), u.x >= -margin, u.y >= -margin, u.x < width + margin,
                u.y < height + margin, map.canBeSeen(p, from: pose.center, minCos: minCos)
            else { continue }
            visible.append(Int32(p))
        }
        return visible
    }

    @Test func blocksSkipOnlyPointsTheScanRejects() throws {
        let venue = Venue.generate(.aliasing, seed: 31, texelScale: 1.5)
        let map = try LocalizationMap(try LocalizerTests.buildMap(venue, seed: 31, every: 2.0))
        #expect(map.pointBlocks.count == (map.data.pointCount + PointBlock.size - 1) / PointBlock.size)
        #expect(map.pointBlocks.allSatisfy { $0.radius.isFinite && $0.reach.isFinite })
        let matching = ProjectionMatching(
            keypoints: [], descriptors: BinaryDescriptors(), map: map, camera: LocalizerTests.camera)
        var rng = SplitMix64(testName: "PointBlockTests.poses")
        let points = map.data.positions
        let low = points.reduce(points[0]) { pointwiseMin($0, $1) }
        let high = points.reduce(points[0]) { pointwiseMax($0, $1) }
        var hiddenBlocks = 0, compared = 0, seen = 0
        for k in 0..<300 {
            // Cameras inside the mapped space and out to three times its size around it, any way round.
            let spread = k < 150 ? 1.0 : 3.0
            let mid = 0.5 * (low + high), half = 0.5 * (high - low) * spread
            let position =
                mid
                + Vec3(
                    (2 * rng.nextUnit() - 1) * half.x, (2 * rng.nextUnit() - 1) * half.y,
                    (2 * rng.nextUnit() - 1) * half.z)
            let axis = Vec3(rng.nextUnit() - 0.5, rng.nextUnit() - 0.5, rng.nextUnit() - 0.5).normalized
            let rotation = Quaternion(axis: axis, angle: 2 * .pi * rng.nextUnit()).matrix
            let pose = CameraPose(rotation: rotation, translation: -(rotation * position))
            for margin in [0.0, 100.0] {
                let fast = matching.visiblePoints(pose: pose, margin: margin)
                #expect(fast == Self.everyPoint(matching, pose: pose, margin: margin), "pose \(k), margin \(margin)")
                compared += 1
                seen += fast.count
            }
            hiddenBlocks +=
                map.pointBlocks.filter {
                    $0.isHidden(from: pose, cameraCenter: pose.center, nearestDepth: 0.05)
                }.count
        }
        // The poses see something, and the blocks do skip work (half the space lies behind a camera).
        #expect(compared == 600 && seen > 0)
        #expect(hiddenBlocks > 300 * map.pointBlocks.count / 3)
    }

    @Test func pointsWithoutADistanceAreNeverSkippedByReach() {
        // Two runs: one seen from 2 m (reach 8 m at scale range 4), one never observed.
        var positions = [Vec3](repeating: Vec3(0, 0, 10), count: 2 * PointBlock.size)
        var distances = [Float](repeating: 2, count: 2 * PointBlock.size)
        for i in PointBlock.size..<(2 * PointBlock.size) { distances[i] = 0 }
        positions[3] = Vec3(0.5, 0, 10)
        let blocks = PointBlock.blocks(positions: positions, viewDistances: distances, scaleRange: 4)
        #expect(blocks.count == 2 && blocks[0].reach == 8 && blocks[1].reach == .infinity)
        #expect(abs(blocks[0].radius - 0.25) < 1e-12)
        // A camera 50 m in front, looking at them: the observed run is out of reach, the other is not.
        let pose = CameraPose(rotation: .identity, translation: Vec3(0, 0, 40))
        #expect(blocks[0].isHidden(from: pose, cameraCenter: pose.center, nearestDepth: 0.05))
        #expect(!blocks[1].isHidden(from: pose, cameraCenter: pose.center, nearestDepth: 0.05))
        // A camera at the origin looking away (points at depth −10): both lie behind it.
        let away = CameraPose(rotation: Quaternion(axis: Vec3(0, 1, 0), angle: .pi).matrix, translation: .zero)
        #expect(blocks.allSatisfy { $0.isHidden(from: away, cameraCenter: away.center, nearestDepth: 0.05) })
        // A point with a non-finite position is never visible: the bounds hold the others.
        positions[5] = Vec3(.nan, 0, 10)
        positions[6] = Vec3(0, .infinity, 10)
        let partly = PointBlock.blocks(positions: positions, viewDistances: distances, scaleRange: 4)
        #expect(partly[0].center == blocks[0].center && partly[0].radius == blocks[0].radius)
        #expect(partly[0].isHidden(from: away, cameraCenter: away.center, nearestDepth: 0.05))
    }
}
