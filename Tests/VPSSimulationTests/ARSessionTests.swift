import Foundation
import Testing
import VPSGeometry
import VPSSimulation

@Suite struct ARSessionTests {
    static let walk = Trajectory.generate(.walk, in: Fixtures.corridor, duration: 45, seed: 21)

    /// All frames of a session, poses only.
    static func frames(
        _ configuration: ARSessionConfiguration, seed: UInt64 = 1, trajectory: Trajectory = walk
    )
        -> [SimulatedFrame]
    {
        var session = ARSessionSimulator(
            venue: Fixtures.corridor, trajectory: trajectory, configuration: configuration, seed: seed)
        var frames: [SimulatedFrame] = []
        while let f = session.next(renderingImage: false) { frames.append(f) }
        return frames
    }

    static func ideal(interval: Double = 0.1) -> ARSessionConfiguration {
        .ideal(camera: Fixtures.smallCamera, frameInterval: interval)
    }

    @Test func theWorldStartsAtTheFirstCameraGravityAligned() throws {
        let frames = ARSessionTests.frames(ARSessionTests.ideal())
        let first = try #require(frames.first)
        #expect(first.events == [.sessionStarted])
        #expect(first.arWorldFromCamera.translation.norm < 1e-12)
        // −Z of the session is the camera's heading: its forward has no X component.
        let forward = first.arWorldFromCamera.rotate(Vec3(0, 0, -1))
        #expect(abs(forward.x) < 1e-12 && forward.z < 0)
        #expect(frames.count == 451)
        #expect(frames.allSatisfy { $0.trackingState == .normal && $0.worldID == 0 })
        // Without drift or noise the session frame is a fixed rigid copy of the venue frame.
        for f in frames {
            let e = f.venueFromSession.error(to: first.venueFromSession)
            #expect(e.rotation < 1e-9 && e.translation < 1e-9)
        }
    }

    @Test func gravityIsExactlyDownInTheSessionFrame() {
        var configuration = ARSessionTests.ideal()
        configuration.yawDriftDegreesPerMinute = 3
        configuration.translationDriftPerMetre = 0.02
        configuration.yawNoiseDegrees = 0.1
        configuration.positionNoise = 0.003
        for f in ARSessionTests.frames(configuration) {
            #expect(f.gravity == Vec3(0, -1, 0))
            // The session and venue frames differ by a rotation about the vertical only.
            let up = f.venueFromSession.rotate(Vec3(0, 1, 0))
            #expect(up.distance(to: Vec3(0, 1, 0)) < 1e-12)
            // So gravity seen from the AR camera is the true gravity in the camera.
            let trueGravity = f.trueWorldFromCamera.rotation.conjugate.act(Vec3(0, -1, 0))
            #expect(f.gravityInCamera.distance(to: trueGravity) < 1e-12)
        }
    }

    @Test func translationDriftIsTheConfiguredFractionOfTheDistanceWalked() throws {
        var configuration = ARSessionTests.ideal()
        configuration.translationDriftPerMetre = 0.01
        let frames = ARSessionTests.frames(configuration)
        let first = try #require(frames.first), last = try #require(frames.last)
        let distance = ARSessionTests.walk.distanceTravelled(at: last.timestamp)
        #expect(distance > 25)
        // Where the session would put the camera without drift, and where it does.
        let expected = first.venueFromSession.inverse * last.trueWorldFromCamera.translation
        let error = last.arWorldFromCamera.translation.distance(to: expected)
        let ratio = error / (0.01 * distance)
        #expect((0.85...1.000_001).contains(ratio), "drift \(error) m after \(distance) m")
        // Rotation does not drift when yaw drift is off.
        let rotationError = (first.venueFromSession.inverse * last.trueWorldFromCamera).rotation
            .angle(to: last.arWorldFromCamera.rotation)
        #expect(rotationError < 1e-9)
    }

    @Test func yawDriftGrowsAtTheConfiguredRate() throws {
        var configuration = ARSessionTests.ideal()
        configuration.yawDriftDegreesPerMinute = 6
        let frames = ARSessionTests.frames(configuration)
        let first = try #require(frames.first)
        for f in frames where f.index % 50 == 0 {
            let driftFree = (first.venueFromSession.inverse * f.trueWorldFromCamera).rotation
            let yawError = degrees(driftFree.angle(to: f.arWorldFromCamera.rotation))
            #expect(abs(yawError - 6 * f.timestamp / 60) < 1e-6)
        }
    }

    @Test func trackingBreaksAppearWhereConfigured() throws {
        var configuration = ARSessionTests.ideal()
        configuration.trackingBreaks = [
            .init(start: 10, duration: 2, state: .limited(.excessiveMotion), jumpDistance: 0.4, jumpYawDegrees: 3),
            .init(start: 20, duration: 1, state: .notAvailable, jumpDistance: 0, jumpYawDegrees: 0),
        ]
        configuration.degradedDriftMultiplier = 0
        let frames = ARSessionTests.frames(configuration)
        for f in frames {
            let t = f.timestamp
            let expected: ARTrackingState =
                (10 - 1e-9..<12 - 1e-9).contains(t)
                ? .limited(.excessiveMotion) : (20 - 1e-9..<21 - 1e-9).contains(t) ? .notAvailable : .normal
            #expect(f.trackingState == expected, "t = \(t)")
        }
        let lost = frames.filter { $0.events.contains { if case .trackingLost = $0 { true } else { false } } }
        let recovered = frames.filter { $0.events.contains { if case .trackingRecovered = $0 { true } else { false } } }
        #expect(lost.map(\.timestamp).map { ($0 * 10).rounded() } == [100, 200])
        #expect(recovered.map(\.timestamp).map { ($0 * 10).rounded() } == [120, 210])
        // The relocalization jump moves the estimate by the configured amount.
        let after = recovered[0], before = frames[after.index - 1]
        let trueStep =
            (after.venueFromSession.inverse * after.trueWorldFromCamera.translation)
            - (before.venueFromSession.inverse * before.trueWorldFromCamera.translation)
        let arStep = after.arWorldFromCamera.translation - before.arWorldFromCamera.translation
        let jump =
            before.venueFromSession.inverse * after.trueWorldFromCamera.translation
            - after.venueFromSession.inverse * after.trueWorldFromCamera.translation
        #expect(abs(jump.norm - 0.4) < 0.05, "jump \(jump.norm)")
        #expect((arStep - trueStep).norm < 0.45)
        let yawJump = degrees(after.venueFromSession.rotation.angle(to: before.venueFromSession.rotation))
        #expect(abs(yawJump - 3) < 1e-6)
    }

    @Test func worldOriginResetsStartNewWorldFrames() {
        var configuration = ARSessionTests.ideal()
        configuration.worldOriginResets = [5, 12.5]
        configuration.initializationDuration = 0.5
        var session = ARSessionSimulator(
            venue: Fixtures.corridor, trajectory: ARSessionTests.walk, configuration: configuration, seed: 2)
        var frames: [SimulatedFrame] = []
        while let f = session.next(renderingImage: false) {
            frames.append(f)
            if f.index == 300 { session.resetWorldOrigin() }
        }
        let resets = frames.filter { $0.events.contains(.worldOriginReset) }
        #expect(resets.map { ($0.timestamp * 10).rounded() } == [50, 125, 301])
        #expect(resets.map(\.worldID) == [1, 2, 3])
        for r in resets {
            #expect(r.arWorldFromCamera.translation.norm < 1e-12)
            #expect(r.trackingState == .limited(.initializing))
            #expect(frames[r.index + 6].trackingState == .normal)
        }
        #expect(frames[0].trackingState == .limited(.initializing))
    }

    @Test func backgroundingSkipsFramesThenStartsANewWorld() throws {
        var configuration = ARSessionTests.ideal()
        configuration.backgroundPeriods = [.init(start: 8, duration: 4)]
        let frames = ARSessionTests.frames(configuration)
        #expect(!frames.contains { $0.timestamp >= 8 - 1e-9 && $0.timestamp < 12 - 1e-9 })
        let resumed = try #require(frames.first { $0.timestamp >= 12 - 1e-9 })
        #expect(resumed.events.contains(.worldOriginReset))
        #expect(
            resumed.events.contains {
                if case .resumedFromBackground(let gap) = $0 { abs(gap - 4.1) < 1e-6 } else { false }
            })
        #expect(resumed.worldID == 1)
        #expect(resumed.index == frames[resumed.index - 1].index + 1)
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
    }

    @Test func sameSeedSameSession() {
        let configuration = ARSessionConfiguration(camera: Fixtures.smallCamera, frameInterval: 0.5)
        let a = ARSessionTests.frames(configuration, seed: 4)
        let b = ARSessionTests.frames(configuration, seed: 4)
        let c = ARSessionTests.frames(configuration, seed: 5)
        #expect(a.map(\.arWorldFromCamera) == b.map(\.arWorldFromCamera))
        #expect(a.map(\.arWorldFromCamera) != c.map(\.arWorldFromCamera))
        #expect(a.map(\.trueWorldFromCamera) == c.map(\.trueWorldFromCamera))
    }

    @Test func imagesAreRenderedOnDemandAndReproducibly() throws {
        var configuration = ARSessionConfiguration(camera: Fixtures.smallCamera, frameInterval: 1)
        configuration.sensor = .phone
        configuration.exposureVariation = 0.1
        var session = ARSessionSimulator(
            venue: Fixtures.corridor, trajectory: ARSessionTests.walk, configuration: configuration, seed: 8)
        let next = session.next()
        let frame = try #require(next)
        let image = try #require(frame.image)
        #expect(image.width == 160 && image.height == 120)
        let again = session.render(frame)
        #expect(again == image)
        let following = session.next(renderingImage: false)
        let bare = try #require(following)
        #expect(bare.image == nil)
        let other = session.render(bare)
        #expect(other != image)
    }
}
