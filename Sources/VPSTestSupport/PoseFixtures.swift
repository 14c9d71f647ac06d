import VPSGeometry

/// A synthetic absolute-pose problem with exact ground truth.
public struct PoseProblem: Sendable {
    /// The true `camFromWorld` pose.
    public var truth: CameraPose
    /// Unit bearings in the camera frame (noise-free unless built with noise).
    public var bearings: [Vec3]
    /// World points.
    public var points: [Vec3]
}

extension SplitMix64 {
    /// A random pose with the camera centre within `centerScale` of the origin.
    public mutating func cameraPose(centerScale: Double = 5) -> CameraPose {
        let r = rotation().matrix
        let c = vector(scale: centerScale)
        return CameraPose(rotation: r, translation: -(r * c))
    }

    /// A pose problem with `count` points in front of the camera at depths in `depths`, within a
    /// cone of half-angle `fovDegrees / 2` around the optical axis.
    public mutating func poseProblem(
        count: Int, depths: ClosedRange<Double> = 2...10, fovDegrees: Double = 90
    ) -> PoseProblem {
        let truth = cameraPose()
        let tanHalf = tan(radians(fovDegrees / 2))
        var bearings: [Vec3] = []
        var points: [Vec3] = []
        let rt = truth.rotation.transposed
        for _ in 0..<count {
            let dir = Vec3(uniform(-tanHalf...tanHalf), uniform(-tanHalf...tanHalf), 1).normalized
            let depth = uniform(depths)
            let pc = dir * depth
            bearings.append(dir)
            points.append(rt * (pc - truth.translation))
        }
        return PoseProblem(truth: truth, bearings: bearings, points: points)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
