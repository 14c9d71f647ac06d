import Foundation
import VPSGeometry
import VPSImaging

/// A simulated AR session walking a trajectory through a venue: frames with the session's
/// drifting pose, the true pose, tracking states, events and (on demand) rendered images.
///
/// Pull-based: each `next()` advances one frame period and returns the next frame, or nil when
/// the trajectory ends — the shape of an SDK frame source (SPEC §4).
///
/// The session's world frame mimics ARKit's: it starts at the camera position of its first frame,
/// gravity-aligned (+Y up) with −Z along the camera's horizontal heading, so it differs from the
/// venue frame by a yaw and a translation. The estimate integrates the true motion with errors:
/// each step is rotated by the yaw drift accumulated so far and pushed by
/// `translationDriftPerMetre × step length` along a slowly wandering direction; per-frame noise
/// is added on top without accumulating. Tracking breaks report degraded states (drift ×
/// `degradedDriftMultiplier`) and end with a jump of the estimate; world-origin resets and
/// returns from the background start a new world frame. Everything derives from `seed`.
public struct ARSessionSimulator: Sendable {
    /// The venue.
    public let venue: Venue
    /// The true camera motion.
    public let trajectory: Trajectory
    /// Session behaviour.
    public let configuration: ARSessionConfiguration
    /// The seed of every random choice (drift, noise, jumps, image noise).
    public let seed: UInt64

    private var renderer: Renderer
    private var target: RenderTarget
    private var rng: SplitMix64
    private var step = 0
    private var emitted = 0
    private var lastTruth: Rigid3?
    private var lastTime = 0.0
    // The current world frame.
    private var worldID = -1
    private var sessionFromVenue = Rigid3.identity
    private var sessionStart = 0.0
    private var estimate = Vec3.zero
    private var yawOffset = 0.0
    private var yawDriftSign = 1.0
    private var driftDirection = Vec3(1, 0, 0)
    // Scripted events.
    private var resetsDone = 0
    private var resetRequested = false
    private var activeBreak: Int?
    private var finishedBreaks: Set<Int> = []
    private var exposurePhase = 0.0

    /// A session over `trajectory` in `venue`.
    public init(venue: Venue, trajectory: Trajectory, configuration: ARSessionConfiguration, seed: UInt64) {
        precondition(configuration.frameInterval > 0, "frameInterval must be positive")
        self.venue = venue
        self.trajectory = trajectory
        self.configuration = configuration
        self.seed = seed
        renderer = Renderer(venue: venue, options: configuration.render)
        target = RenderTarget(width: configuration.camera.width, height: configuration.camera.height)
        rng = SplitMix64(seed: seed ^ 0x5E55_1011)
        exposurePhase = 2 * .pi * rng.nextUnit()
    }

    /// True once `next()` has returned nil.
    public var isFinished: Bool { trajectoryTime(step) > trajectory.duration + 1e-9 }

    /// Asks for a new world frame at the next frame (ARKit's `run(_:options: .resetTracking)`).
    public mutating func resetWorldOrigin() { resetRequested = true }

    /// The next frame with its rendered image, or nil when the trajectory is over.
    public mutating func next() -> SimulatedFrame? { next(renderingImage: true) }

    /// The next frame, rendering its image only when asked (poses alone are much cheaper).
    public mutating func next(renderingImage: Bool) -> SimulatedFrame? {
        var events: [ARSessionEvent] = []
        var newWorld = worldID < 0
        if newWorld { events.append(.sessionStarted) }
        // Skip frames while the app is in the background.
        if let period = configuration.backgroundPeriods.first(where: { inside(trajectoryTime(step), $0) }) {
            let before = trajectoryTime(step)
            while inside(trajectoryTime(step), period) { step += 1 }
            events.append(.resumedFromBackground(gap: trajectoryTime(step) - before + configuration.frameInterval))
            newWorld = true
        }
        let t = trajectoryTime(step)
        guard t <= trajectory.duration + 1e-9 else { return nil }
        let truth = trajectory.worldFromCamera(at: t)
        while resetsDone < configuration.worldOriginResets.count
            && configuration.worldOriginResets[resetsDone] <= t + 1e-9
        {
            resetsDone += 1
            newWorld = true
        }
        if resetRequested {
            resetRequested = false
            newWorld = true
        }
        let state: ARTrackingState
        if newWorld {
            startWorld(at: truth, time: t)
            if worldID > 0 { events.append(.worldOriginReset) }
        } else {
            integrate(to: truth, time: t)
        }
        // Tracking breaks.
        if let i = activeBreak, !inside(t, configuration.trackingBreaks[i]) {
            activeBreak = nil
            finishedBreaks.insert(i)
            events.append(.trackingRecovered(jump: relocalize(configuration.trackingBreaks[i], truth: truth)))
        }
        if activeBreak == nil,
            let i = configuration.trackingBreaks.indices.first(where: {
                !finishedBreaks.contains($0) && inside(t, configuration.trackingBreaks[$0])
            })
        {
            activeBreak = i
            events.append(.trackingLost(configuration.trackingBreaks[i].state))
        }
        if let i = activeBreak {
            state = configuration.trackingBreaks[i].state
        } else if t < sessionStart + configuration.initializationDuration {
            state = .limited(.initializing)
        } else {
            state = .normal
        }
        lastTruth = truth
        lastTime = t
        var frame = SimulatedFrame(
            index: emitted, timestamp: configuration.startTime + t, camera: configuration.camera,
            trueWorldFromCamera: truth, arWorldFromCamera: reportedPose(truth), trackingState: state, worldID: worldID,
            events: events)
        emitted += 1
        step += 1
        if renderingImage { frame.image = render(frame) }
        return frame
    }

    /// Renders `frame`'s true view with the configured sensor effects; the same frame always gives
    /// the same image.
    public mutating func render(_ frame: SimulatedFrame) -> RGBImage {
        renderer.render(camera: frame.camera, camFromWorld: frame.trueCamFromWorld, into: &target)
        var image = target.image
        var effects = configuration.sensor
        let t = frame.timestamp - configuration.startTime
        for span in configuration.blurSpans where span.contains(t) {
            effects.boxBlurRadius = max(effects.boxBlurRadius, span.radius)
        }
        if configuration.exposureVariation != 0 {
            effects.gain *= 1 + configuration.exposureVariation * sin(2 * .pi * frame.timestamp / 7 + exposurePhase)
        }
        var noise = SplitMix64(seed: seed ^ (UInt64(frame.index) &* 0x9E37_79B9_7F4A_7C15))
        effects.apply(to: &image, using: &noise)
        return image
    }

    // MARK: Internals

    private func trajectoryTime(_ step: Int) -> Double { Double(step) * configuration.frameInterval }

    private func inside(_ t: Double, _ p: ARSessionConfiguration.BackgroundPeriod) -> Bool {
        t >= p.start - 1e-9 && t < p.start + p.duration - 1e-9
    }

    private func inside(_ t: Double, _ b: ARSessionConfiguration.TrackingBreak) -> Bool {
        t >= b.start - 1e-9 && t < b.start + b.duration - 1e-9
    }

    /// The yaw (about +Y) that turns −Z towards the camera's horizontal viewing direction.
    private static func headingYaw(_ worldFromCamera: Rigid3) -> Double {
        let forward = worldFromCamera.rotate(Vec3(0, 0, -1))
        return atan2(-forward.x, -forward.z)
    }

    private static func yawRotation(_ angle: Double) -> Quaternion { Quaternion(axis: Vec3(0, 1, 0), angle: angle) }

    private mutating func randomUnit() -> Vec3 {
        while true {
            let v = Vec3(rng.nextGaussian(), rng.nextGaussian(), rng.nextGaussian())
            if v.norm > 1e-6 { return v.normalized }
        }
    }

    /// A new world frame at the camera: origin at its centre, −Z along its heading.
    private mutating func startWorld(at truth: Rigid3, time: Double) {
        worldID += 1
        let venueFromSession = Rigid3(
            rotation: ARSessionSimulator.yawRotation(ARSessionSimulator.headingYaw(truth)),
            translation: truth.translation)
        sessionFromVenue = venueFromSession.inverse
        sessionStart = time
        estimate = .zero
        yawOffset = 0
        yawDriftSign = rng.nextUnit() < 0.5 ? -1 : 1
        driftDirection = randomUnit()
        activeBreak = nil
    }

    /// The yaw error of the estimate at time `t`, radians.
    private func yawError(_ t: Double) -> Double {
        yawDriftSign * radians(configuration.yawDriftDegreesPerMinute) * (t - sessionStart) / 60 + yawOffset
    }

    /// Integrates the true motion since the last frame into the estimate, with drift.
    private mutating func integrate(to truth: Rigid3, time: Double) {
        guard let last = lastTruth else { return }
        let dt = max(0, time - lastTime)
        let delta = truth.translation - last.translation
        let length = delta.norm
        // The drift direction diffuses on the sphere: about 1 rad rms after one time constant.
        let tau = max(configuration.driftDirectionTimeConstant, 1e-6)
        let kick = Vec3(rng.nextGaussian(), rng.nextGaussian(), rng.nextGaussian()) * (dt / (2 * tau)).squareRoot()
        driftDirection = (driftDirection + kick).normalized
        let weighted = Vec3(driftDirection.x, driftDirection.y * configuration.verticalDriftWeight, driftDirection.z)
        let degraded = activeBreak != nil
        let fraction = configuration.translationDriftPerMetre * (degraded ? configuration.degradedDriftMultiplier : 1)
        let yaw = ARSessionSimulator.yawRotation(yawError(time))
        estimate += yaw.act(sessionFromVenue.rotate(delta)) + weighted.normalized * (fraction * length)
    }

    /// Applies a tracking break's relocalization jump; returns it as `newSessionFromOldSession`.
    private mutating func relocalize(_ b: ARSessionConfiguration.TrackingBreak, truth: Rigid3) -> Rigid3 {
        let angle = 2 * .pi * rng.nextUnit()
        let shift = Vec3(cos(angle), 0, sin(angle)) * b.jumpDistance
        let yaw = radians(b.jumpYawDegrees) * (rng.nextUnit() < 0.5 ? -1 : 1)
        let before = estimate
        estimate += shift
        yawOffset += yaw
        // Turning by `yaw` about the camera and shifting by `shift`.
        let r = ARSessionSimulator.yawRotation(yaw)
        return Rigid3(rotation: r, translation: before + shift - r.act(before))
    }

    /// The session's reported pose: the estimate plus per-frame noise.
    private mutating func reportedPose(_ truth: Rigid3) -> Rigid3 {
        var rotation = ARSessionSimulator.yawRotation(yawError(lastTime)) * sessionFromVenue.rotation * truth.rotation
        var position = estimate
        let c = configuration
        if c.positionNoise > 0 {
            position += Vec3(rng.nextGaussian(), rng.nextGaussian(), rng.nextGaussian()) * c.positionNoise
        }
        if c.yawNoiseDegrees > 0 {
            rotation = ARSessionSimulator.yawRotation(radians(c.yawNoiseDegrees) * rng.nextGaussian()) * rotation
        }
        if c.tiltNoiseDegrees > 0 {
            let tilt = Vec3(rng.nextGaussian(), 0, rng.nextGaussian()) * radians(c.tiltNoiseDegrees)
            rotation = Quaternion(rotationVector: tilt) * rotation
        }
        return Rigid3(rotation: rotation, translation: position)
    }
}
