import Foundation
import VPSImaging

/// Where a keypoint's patch lies in its image: centre, sampling step and orientation.
///
/// A patch is `PointPatch.side`² samples on the grid `centre + scale · R(angle) · u`, u ∈ {−r…r}²
/// (r = side / 2), in full-resolution pixels; each sample is the image's mean over the axis-aligned
/// square of side `PointPatch.boxSize · scale` centred on it (`IntegralImage`, `BoxSampler`). That is
/// a continuous filter of the position, matched to the scale: a patch read anywhere, at any sub-pixel
/// offset, sees the image the same way. (Reading a smoothed grid instead — a pyramid level, or a window
/// resampled around each keypoint — filters differently at different sub-pixel phases and scales, which
/// biased alignments by about a tenth of a pixel.) Orienting and scaling the grid by the keypoint's own
/// angle and size makes patches of one 3D point from different views nearly the same up to a small
/// affine warp, which `PatchAlignment` then finds.
public struct PatchFrame: Sendable, Equatable {
    /// Centre, full-resolution pixels (`Keypoint` convention).
    public var center: SIMD2<Double>
    /// Full-resolution pixels between neighbouring patch samples.
    public var scale: Double
    /// Orientation of the grid's x axis, radians, clockwise in the image (y down).
    public var angle: Double
    /// The keypoint's position precision, full-resolution pixels per unit of `PatchAlignment.maxShift`:
    /// its pyramid decimation (ORB's level scale, which is also its patch step; SIFT's octave, finer
    /// than its patch step, which grows with the blob).
    public var precision: Double

    /// A frame from its parts (`precision` defaults to `scale`).
    public init(center: SIMD2<Double>, scale: Double, angle: Double, precision: Double? = nil) {
        self.center = center
        self.scale = scale
        self.angle = angle
        self.precision = precision ?? scale
    }

    /// The frame of a keypoint: ORB keypoints at their pyramid level's scale (size / 31, the
    /// descriptor patch), SIFT keypoints at size / 2 (the 11 samples span about the region the
    /// descriptor describes; no finer than half a pixel; on the Strecha scenes' RootSIFT leave-one-out
    /// size / 2, size / 3.2 and 1.5 × the octave's decimation were equal within the spread of the
    /// medians); orientation from the detector (0 when it gave none).
    public init(keypoint k: Keypoint, binary: Bool) {
        center = SIMD2(Double(k.x), Double(k.y))
        scale = binary ? max(1, Double(k.size) / 31) : max(0.5, Double(k.size) / 2)
        angle = k.angle >= 0 ? Double(k.angle) * .pi / 180 : 0
        precision = binary ? scale : Double(1 << Int(max(0, min(20, k.octave))))
    }
}

/// A map point's appearance: its reference view's patch, `side`² bytes, row-major, sampled in the
/// reference keypoint's `PatchFrame`. Stored per point in maps (`MapData.pointPatches`), it is what
/// both map building (the track's other views) and queries align their keypoints to.
public enum PointPatch {
    /// Samples per side.
    public static let side = 11
    /// Samples per patch.
    public static let count = side * side
    /// Half side.
    static let radius = side / 2

    /// Side of each sample's averaging square, in samples (σ ≈ 0.43 samples: smooth enough for gradients,
    /// sharp enough for corners; on the Strecha scenes 1.25–1.5 gave the best poses of 1–3).
    public static let boxSize = 1.5

    /// The patch at `frame` in the image of `integral`, rounded to bytes; nil when part of it falls
    /// outside the image.
    public static func sample(_ integral: IntegralImage, at frame: PatchFrame) -> [UInt8]? {
        let c = cos(frame.angle) * frame.scale, s = sin(frame.angle) * frame.scale
        let half = 0.5 * boxSize * frame.scale
        return integral.withBoxSampler { sampler -> [UInt8]? in
            var out = [UInt8](repeating: 0, count: count)
            var i = 0
            for v in -radius...radius {
                for u in -radius...radius {
                    let du = Double(u), dv = Double(v)
                    guard
                        let value = sampler.mean(
                            frame.center.x + c * du - s * dv, frame.center.y + s * du + c * dv, half: half)
                    else { return nil }
                    out[i] = UInt8(max(0, min(255, value.rounded())))
                    i += 1
                }
            }
            return out
        }
    }
}
