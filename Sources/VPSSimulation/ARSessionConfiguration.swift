import VPSGeometry

/// How the simulated AR session behaves: camera, frame rate, drift, noise and scripted events.
///
/// All times are simulated seconds from the start of the trajectory. The defaults model a good
/// phone session: 30 Hz, 1 % translation drift, 0.5°/min yaw drift, 2 mm / 0.05° pose noise, no
/// events, no image effects.
public struct ARSessionConfiguration: Equatable, Sendable {
    /// A scripted span of degraded tracking, ended by a relocalization that moves the estimate.
    public struct TrackingBreak: Equatable, Sendable {
        /// When it starts and how long it lasts, seconds.
        public var start: Double, duration: Double
        /// The state reported during the break (`.limited(…)` or `.notAvailable`).
        public var state: ARTrackingState
        /// Size of the translation jump of the estimate when tracking recovers, metres
        /// (horizontal, random direction).
        public var jumpDistance: Double
        /// Size of the yaw jump when tracking recovers, degrees (random sign).
        public var jumpYawDegrees: Double

        /// A tracking break.
        public init(
            start: Double, duration: Double, state: ARTrackingState = .limited(.excessiveMotion),
            jumpDistance: Double = 0.3, jumpYawDegrees: Double = 2
        ) {
            self.start = start
            self.duration = duration
            self.state = state
            self.jumpDistance = jumpDistance
            self.jumpYawDegrees = jumpYawDegrees
        }
    }

    /// A span with the app in the background: no frames; afterwards a new world frame.
    public struct BackgroundPeriod: Equatable, Sendable {
        /// When it starts and how long it lasts, seconds.
        public var start: Double, duration: Double

        /// A background period.
        public init(start: Double, duration: Double) {
            self.start = start
            self.duration = duration
        }
    }

    /// A span of motion blur (the phone swung fast): frames rendered in it get a box blur.
    public struct BlurSpan: Equatable, Sendable {
        /// When it starts and how long it lasts, seconds.
        public var start: Double, duration: Double
        /// Radius of the box blur, pixels.
        public var radius: Int

        /// A blur span.
        public init(start: Double, duration: Double, radius: Int = 4) {
            self.start = start
            self.duration = duration
            self.radius = radius
        }

        /// Whether trajectory time `t` (seconds) falls in the span.
        public func contains(_ t: Double) -> Bool { t >= start - 1e-9 && t < start + duration - 1e-9 }
    }

    /// Intrinsics and image size of the frames (CV convention; distortion is not rendered).
    public var camera: Camera
    /// Seconds between frames.
    public var frameInterval: Double
    /// Timestamp of the first frame, seconds.
    public var startTime: Double
    /// Translation drift per metre travelled (0.01 = 1 %), along a slowly wandering direction.
    public var translationDriftPerMetre: Double
    /// Seconds over which the drift direction turns by about 1 radian (rms); it wanders slowly.
    public var driftDirectionTimeConstant: Double
    /// Weight of the vertical component of the drift direction (visual-inertial odometry drifts
    /// less along gravity).
    public var verticalDriftWeight: Double
    /// Yaw drift, degrees per minute (random sign per world frame).
    public var yawDriftDegreesPerMinute: Double
    /// Standard deviation of the per-frame position noise, metres per axis.
    public var positionNoise: Double
    /// Standard deviation of the per-frame yaw noise, degrees.
    public var yawNoiseDegrees: Double
    /// Standard deviation of the per-frame tilt (pitch/roll) noise, degrees. 0 keeps the reported
    /// orientation's gravity direction exact.
    public var tiltNoiseDegrees: Double
    /// Seconds of `.limited(.initializing)` at the start of every world frame.
    public var initializationDuration: Double
    /// Drift multiplier while tracking is not normal.
    public var degradedDriftMultiplier: Double
    /// Scripted tracking breaks.
    public var trackingBreaks: [TrackingBreak]
    /// Times of scripted world-origin resets, seconds.
    public var worldOriginResets: [Double]
    /// Scripted background periods.
    public var backgroundPeriods: [BackgroundPeriod]
    /// Effects applied to rendered images.
    public var sensor: SensorEffects
    /// Scripted spans of motion blur (none by default).
    public var blurSpans: [BlurSpan] = []
    /// Relative amplitude of slow auto-exposure changes (0.1 = gain within ±10 %).
    public var exposureVariation: Double
    /// Rendering options.
    public var render: RenderOptions

    /// A configuration; see the type's discussion for the defaults.
    public init(
        camera: Camera = Camera(fx: 500, fy: 500, cx: 320, cy: 240, width: 640, height: 480),
        frameInterval: Double = 1.0 / 30, startTime: Double = 0, translationDriftPerMetre: Double = 0.01,
        driftDirectionTimeConstant: Double = 300, verticalDriftWeight: Double = 0.3,
        yawDriftDegreesPerMinute: Double = 0.5, positionNoise: Double = 0.002, yawNoiseDegrees: Double = 0.05,
        tiltNoiseDegrees: Double = 0, initializationDuration: Double = 0, degradedDriftMultiplier: Double = 10,
        trackingBreaks: [TrackingBreak] = [], worldOriginResets: [Double] = [],
        backgroundPeriods: [BackgroundPeriod] = [],
        sensor: SensorEffects = .none, exposureVariation: Double = 0, render: RenderOptions = RenderOptions()
    ) {
        self.camera = camera
        self.frameInterval = frameInterval
        self.startTime = startTime
        self.translationDriftPerMetre = translationDriftPerMetre
        self.driftDirectionTimeConstant = driftDirectionTimeConstant
        self.verticalDriftWeight = verticalDriftWeight
        self.yawDriftDegreesPerMinute = yawDriftDegreesPerMinute
        self.positionNoise = positionNoise
        self.yawNoiseDegrees = yawNoiseDegrees
        self.tiltNoiseDegrees = tiltNoiseDegrees
        self.initializationDuration = initializationDuration
        self.degradedDriftMultiplier = degradedDriftMultiplier
        self.trackingBreaks = trackingBreaks
        self.worldOriginResets = worldOriginResets
        self.backgroundPeriods = backgroundPeriods
        self.sensor = sensor
        self.exposureVariation = exposureVariation
        self.render = render
    }

    /// A perfect session: no drift, no noise, no events, no image effects.
    public static func ideal(camera: Camera, frameInterval: Double = 1.0 / 30) -> ARSessionConfiguration {
        ARSessionConfiguration(
            camera: camera, frameInterval: frameInterval, translationDriftPerMetre: 0, yawDriftDegreesPerMinute: 0,
            positionNoise: 0, yawNoiseDegrees: 0)
    }
}
