import Foundation
import VPSGeometry

/// A camera path through a venue: the true `worldFromCamera` as a function of time.
///
/// Poses use the venue's world frame and ARKit's camera axes (+X right, +Y up, looking down −Z);
/// `CameraAxes.cvPose(fromARKit:)` gives the computer-vision camera used for rendering. Stored as
/// samples every `sampleInterval` seconds of position and yaw/pitch/roll, interpolated linearly.
/// Orientation: `Ry(yaw) · Rx(pitch) · Rz(roll)`; yaw 0 looks along −Z, positive pitch looks up.
public struct Trajectory: Sendable {
    /// The kinds of motion `generate(_:in:duration:seed:)` produces.
    public enum Kind: String, CaseIterable, Sendable {
        /// A smooth walk through the walkable area at about 1 m/s, looking roughly ahead, the
        /// camera 1.4–1.7 m high.
        case walk
        /// Standing in one place, panning around and up and down.
        case lookAround
        /// A systematic pass for map building: a full turn at stations spread over every room,
        /// walking between them.
        case scan
    }

    /// One stored sample.
    struct Sample: Sendable {
        var position: Vec3
        var yaw: Double, pitch: Double, roll: Double
    }

    /// What produced the trajectory.
    public let kind: Kind
    /// Seconds between stored samples.
    public let sampleInterval: Double
    let samples: [Sample]
    /// Distance travelled from the start up to each sample, metres.
    let cumulativeDistance: [Double]

    init(kind: Kind, sampleInterval: Double, samples: [Sample]) {
        precondition(!samples.isEmpty, "a trajectory needs samples")
        self.kind = kind
        self.sampleInterval = sampleInterval
        self.samples = samples
        var distance = [0.0]
        for i in 1..<samples.count {
            distance.append(distance[i - 1] + samples[i].position.distance(to: samples[i - 1].position))
        }
        cumulativeDistance = distance
    }

    /// Length in seconds.
    public var duration: Double { Double(samples.count - 1) * sampleInterval }

    /// The ARKit camera orientation for yaw, pitch and roll (radians).
    public static func orientation(yaw: Double, pitch: Double, roll: Double) -> Quaternion {
        Quaternion(axis: Vec3(0, 1, 0), angle: yaw) * Quaternion(axis: Vec3(1, 0, 0), angle: pitch)
            * Quaternion(axis: Vec3(0, 0, 1), angle: roll)
    }

    /// Index and fraction of the sample interval holding time `t` (clamped to the duration).
    private func locate(_ t: Double) -> (Int, Double) {
        let x = min(max(t / sampleInterval, 0), Double(samples.count - 1))
        let i = min(Int(x), samples.count - 1)
        return (i, i + 1 < samples.count ? x - Double(i) : 0)
    }

    /// The true camera pose at time `t` seconds (clamped to `[0, duration]`): venue world frame,
    /// ARKit camera axes.
    public func worldFromCamera(at t: Double) -> Rigid3 {
        let (i, f) = locate(t)
        let a = samples[i], b = samples[min(i + 1, samples.count - 1)]
        func mix(_ x: Double, _ y: Double) -> Double { x + (y - x) * f }
        return Rigid3(
            rotation: Trajectory.orientation(
                yaw: mix(a.yaw, b.yaw), pitch: mix(a.pitch, b.pitch), roll: mix(a.roll, b.roll)),
            translation: a.position + (b.position - a.position) * f)
    }

    /// Distance travelled by the camera centre from the start to time `t`, metres.
    public func distanceTravelled(at t: Double) -> Double {
        let (i, f) = locate(t)
        let j = min(i + 1, samples.count - 1)
        return cumulativeDistance[i] + (cumulativeDistance[j] - cumulativeDistance[i]) * f
    }

    /// Generates a trajectory.
    ///
    /// - Parameters:
    ///   - kind: the motion.
    ///   - venue: where; uses its walkable area and portals.
    ///   - duration: seconds; nil for the default (walk 60 s, look-around 30 s, scan: as long as
    ///     the pass takes). For a scan, a duration shorter than the pass cuts it.
    ///   - seed: every random choice derives from it.
    ///   - sampleInterval: seconds between stored samples.
    public static func generate(
        _ kind: Kind, in venue: Venue, duration: Double? = nil, seed: UInt64, sampleInterval: Double = 0.02
    ) -> Trajectory {
        var rng = SplitMix64(seed: seed ^ SplitMix64.seed(from: kind.rawValue))
        let samples: [Sample]
        switch kind {
        case .walk:
            samples = walkSamples(venue.walkableArea, duration: duration ?? 60, dt: sampleInterval, using: &rng)
        case .lookAround:
            samples = lookAroundSamples(venue.walkableArea, duration: duration ?? 30, dt: sampleInterval, using: &rng)
        case .scan:
            samples = scanSamples(venue.walkableArea, maxDuration: duration, dt: sampleInterval, using: &rng)
        }
        return Trajectory(kind: kind, sampleInterval: sampleInterval, samples: samples)
    }
}
