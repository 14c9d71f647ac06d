import Foundation
import VPSGeometry

/// Which frames of a scan become keyframes (docs/SCANNING.md).
///
/// A frame is a candidate once tracking is normal, at least `minInterval` seconds passed since the last
/// keyframe, and the camera moved at least `minTranslation` metres or turned at least
/// `minRotationDegrees` since it. A candidate is kept unless it is blurred: its sharpness (see
/// ``ScanImageStatistics``) below `blurRatio` times the median of the last five keyframes', or below
/// `minSharpness`. The defaults keep at most 2 frames per second, about
/// one per 15 cm of walking or 12° of turning, which is what map building needs for a wide baseline
/// with overlap.
public struct ScanKeyframePolicy: Sendable, Equatable {
    /// Seconds between keyframes, at least.
    public var minInterval: Double = 0.5
    /// Metres moved since the last keyframe for a new one (or the turn below).
    public var minTranslation: Double = 0.15
    /// Degrees turned since the last keyframe for a new one (or the move above).
    public var minRotationDegrees: Double = 12
    /// A candidate whose sharpness is below this share of the recent keyframes' median is blurred.
    ///
    /// Measured on the simulator's room at 640×480: sharp views score 0.14–0.42 (a factor 3 between
    /// views), the same views under a 5-pixel box blur 0.04–0.06, under a 3-pixel one 0.07–0.14; 0.4
    /// never calls a sharp view blurred and catches every blur of 5 pixels or more.
    public var blurRatio: Double = 0.4
    /// Sharpness below which any frame is blurred.
    public var minSharpness: Double = 0.07
    /// Mean luma (0–1) below which a frame is dark.
    public var darkBrightness: Double = 0.12
    /// Share of textured samples below which a frame has too few features.
    public var minTexture: Double = 0.02
    /// Walking speed (m/s) and turning rate (°/s) above which the scan is too fast.
    public var maxSpeed: Double = 1.2, maxTurnRate: Double = 60

    /// The default policy.
    public init() {}

    /// Whether a frame at `time` and pose `worldFromCamera` is a candidate after the keyframe `last`
    /// (nil before the first one).
    func isCandidate(time: Double, worldFromCamera: Rigid3, after last: (time: Double, pose: Rigid3)?) -> Bool {
        guard let last else { return true }
        guard time - last.time >= minInterval - 1e-9 else { return false }
        let moved = (worldFromCamera.translation - last.pose.translation).norm
        let turned = Self.angleDegrees(last.pose.rotation, worldFromCamera.rotation)
        return moved >= minTranslation || turned >= minRotationDegrees
    }

    /// Whether `sharpness` is blurred given the recent keyframes' sharpness values.
    func isBlurred(_ sharpness: Double, recent: [Double]) -> Bool {
        if sharpness < minSharpness { return true }
        guard !recent.isEmpty else { return false }
        let sorted = recent.sorted()
        return sharpness < blurRatio * sorted[sorted.count / 2]
    }

    /// The angle between two orientations, degrees.
    static func angleDegrees(_ a: Quaternion, _ b: Quaternion) -> Double {
        let d = a.conjugate * b
        let w = min(1, abs(d.w) / max(d.norm, 1e-12))
        return 2 * acos(w) * 180 / .pi
    }
}
