import Foundation
import Testing
import VPSGeometry
import VPSSimulation

@Suite struct TrajectoryTests {
    /// Heading yaw of an ARKit camera pose (0 looks along −Z).
    static func yaw(_ worldFromCamera: Rigid3) -> Double {
        let f = worldFromCamera.rotate(Vec3(0, 0, -1))
        return atan2(-f.x, -f.z)
    }

    @Test func walkIsSmoothAtWalkingSpeedAndEyeHeight() {
        let venue = Fixtures.room
        let walk = Trajectory.generate(.walk, in: venue, duration: 40, seed: 3)
        #expect(abs(walk.duration - 40) < 1e-9)
        let speed = walk.distanceTravelled(at: 40) / 40
        #expect((0.6...1.2).contains(speed), "mean speed \(speed) m/s")
        var previous = walk.worldFromCamera(at: 0)
        for i in 1...400 {
            let pose = walk.worldFromCamera(at: Double(i) * 0.1)
            let p = pose.translation
            #expect((1.38...1.72).contains(p.y))
            #expect(venue.rooms[0].contains(p, tolerance: -0.2))
            #expect(p.distance(to: previous.translation) < 0.16)  // ≤ 1.6 m/s
            #expect(pose.rotation.angle(to: previous.rotation) < radians(25))  // ≤ 250°/s
            previous = pose
        }
    }

    @Test func walkLooksRoughlyAhead() {
        let walk = Trajectory.generate(.walk, in: Fixtures.corridor, duration: 30, seed: 4)
        var aligned = 0, moving = 0
        for i in 0..<300 {
            let t = Double(i) * 0.1
            let a = walk.worldFromCamera(at: t).translation, b = walk.worldFromCamera(at: t + 0.1).translation
            let motion = Vec3(b.x - a.x, 0, b.z - a.z)
            guard motion.norm > 0.05 else { continue }
            moving += 1
            let forward = walk.worldFromCamera(at: t).rotate(Vec3(0, 0, -1))
            if Vec3(forward.x, 0, forward.z).normalized.dot(motion.normalized) > cos(radians(40)) { aligned += 1 }
        }
        #expect(moving > 150)
        #expect(Double(aligned) / Double(moving) > 0.8)
    }

    @Test func lookAroundStaysPutAndPans() {
        let look = Trajectory.generate(.lookAround, in: Fixtures.room, duration: 30, seed: 5)
        let start = look.worldFromCamera(at: 0)
        var minYaw = 0.0, maxYaw = 0.0
        var previous = TrajectoryTests.yaw(start), unwrapped = 0.0
        for i in 1...300 {
            let pose = look.worldFromCamera(at: Double(i) * 0.1)
            #expect(pose.translation.distance(to: start.translation) < 0.15)
            let y = TrajectoryTests.yaw(pose)
            var d = y - previous
            if d > .pi { d -= 2 * .pi }
            if d < -.pi { d += 2 * .pi }
            unwrapped += d
            previous = y
            minYaw = min(minYaw, unwrapped)
            maxYaw = max(maxYaw, unwrapped)
        }
        #expect(maxYaw - minYaw > radians(120))
    }

    @Test func scanTurnsFullCirclesAtStationsInEveryRoom() {
        let venue = Fixtures.aliasing
        let scan = Trajectory.generate(.scan, in: venue, seed: 6)
        #expect(scan.duration > 60)
        var visited = Set<Int>()
        var turned = 0.0
        var previous = TrajectoryTests.yaw(scan.worldFromCamera(at: 0))
        var t = 0.0
        while t <= scan.duration {
            let pose = scan.worldFromCamera(at: t)
            if let room = venue.rooms.firstIndex(where: { $0.contains(pose.translation) }) { visited.insert(room) }
            let y = TrajectoryTests.yaw(pose)
            var d = y - previous
            if d > .pi { d -= 2 * .pi }
            if d < -.pi { d += 2 * .pi }
            turned += abs(d)
            previous = y
            t += 0.1
        }
        #expect(visited == [0, 1])
        #expect(turned > 4 * 2 * .pi)  // at least two stations per room
    }

    @Test(arguments: Trajectory.Kind.allCases)
    func sameSeedSameTrajectory(kind: Trajectory.Kind) {
        let a = Trajectory.generate(kind, in: Fixtures.room, duration: 20, seed: 9)
        let b = Trajectory.generate(kind, in: Fixtures.room, duration: 20, seed: 9)
        let c = Trajectory.generate(kind, in: Fixtures.room, duration: 20, seed: 10)
        #expect(a.duration == b.duration)
        for t in stride(from: 0.0, through: 20, by: 1.7) {
            #expect(a.worldFromCamera(at: t) == b.worldFromCamera(at: t))
        }
        #expect(a.worldFromCamera(at: 10) != c.worldFromCamera(at: 10))
    }
}
