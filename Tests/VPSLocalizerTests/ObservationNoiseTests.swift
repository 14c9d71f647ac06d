import Testing
import VPSFeatures
import VPSGeometry

@testable import VPSLocalizer
@testable import VPSMap

/// `ObservationNoise`: a map's keypoint noise, read from how far its points reproject.
@Suite struct ObservationNoiseTests {
    static let camera = Camera(fx: 600, fy: 600, cx: 320, cy: 240, width: 640, height: 480)

    /// `views` cameras 0.3 m apart looking at `count` points 4–6 m away, keypoints off the true
    /// projections by `pixels` per axis, points triangulated from those keypoints.
    static func map(views: Int, count: Int, pixels: Double, seed: UInt64) throws -> LocalizationMap {
        var rng = SplitMix64(seed: seed)
        let poses = (0..<views).map { CameraPose(Rigid3(translation: Vec3(-0.3 * Double($0), 0, 0))) }
        var keypoints = [[SIMD2<Float>]](repeating: [], count: views)
        var positions: [Vec3] = []
        for _ in 0..<count {
            let truth = Vec3(rng.nextUnit() * 4 - 2, rng.nextUnit() * 3 - 1.5, 4 + 2 * rng.nextUnit())
            var observations: [TriangulationObservation] = []
            var pixels2: [SIMD2<Float>] = []
            for pose in poses {
                let u = camera.project(pose.transform(truth))!
                let noisy = Vec2(u.x + pixels * rng.nextGaussian(), u.y + pixels * rng.nextGaussian())
                pixels2.append(SIMD2(Float(noisy.x), Float(noisy.y)))
                observations.append(
                    TriangulationObservation(camFromWorld: pose, normalized: camera.normalized(fromPixel: noisy)!))
            }
            positions.append(triangulatePoint(observations)!)
            for k in 0..<views { keypoints[k].append(pixels2[k]) }
        }
        let keyframes = (0..<views).map { k in
            Keyframe(
                id: UInt32(k), name: "kf\(k)", camera: camera, camFromMap: poses[k].rigid, keypoints: keypoints[k],
                descriptors: [UInt8](repeating: 0, count: 32 * count), pointIndices: (0..<count).map { Int32($0) })
        }
        return try LocalizationMap(
            MapData(
                code: "MAP_NOISE0000001", name: "noise", featureConfig: FeatureConfigID(name: "orb-2000", version: 1),
                descriptorBytes: 32, positions: positions, colors: [UInt8](repeating: 0, count: 3 * count),
                pointDescriptors: [UInt8](repeating: 0, count: 32 * count), keyframes: keyframes))
    }

    @Test(arguments: [(2, 0.5), (3, 0.5), (5, 0.3), (3, 1.2)])
    func recoversTheKeypointNoise(views: Int, pixels: Double) throws {
        let map = try Self.map(views: views, count: 400, pixels: pixels, seed: UInt64(views * 10))
        #expect(abs(map.observationSigma - pixels) < 0.12 * pixels, "estimated \(map.observationSigma) px")
    }

    @Test func tooFewObservationsAssumeOnePixel() throws {
        let map = try Self.map(views: 2, count: 20, pixels: 0.3, seed: 3)
        #expect(map.observationSigma == 1)
    }
}
