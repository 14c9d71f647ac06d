import Testing
import VPSFeatures
import VPSGeometry

@testable import VPSLocalizer
@testable import VPSMap

/// Matching guided by a pose, on exactly known geometry: 300 map points on a wall 3 m in front of
/// the camera, each with a random descriptor; the query sees them with 12 bits flipped per
/// descriptor, plus 200 unrelated keypoints.
struct ProjectionMatchingTests {
    static let camera = Camera(fx: 500, fy: 500, cx: 320, cy: 240, width: 640, height: 480)
    /// The query's true pose: identity (camera at the origin, looking down +Z).
    static let truth = CameraPose(Rigid3())

    struct Scene {
        let map: LocalizationMap
        let keypoints: [Keypoint]
        let descriptors: BinaryDescriptors
        /// Query keypoint i < 300 sees map point i.
        let pointCount: Int
    }

    static func scene(seed: UInt64 = 7) throws -> Scene {
        var rng = SplitMix64(seed: seed)
        let n = 300
        var positions: [Vec3] = []
        var bytes: [UInt8] = []
        for _ in 0..<n {
            positions.append(Vec3(rng.nextUnit() * 3 - 1.5, rng.nextUnit() * 2.2 - 1.1, 3))
            for _ in 0..<32 { bytes.append(UInt8(truncatingIfNeeded: rng.next())) }
        }
        // One keyframe 0.5 m behind the query camera observes every point.
        let keyframeCamera = Camera(fx: 500, fy: 500, cx: 320, cy: 240, width: 640, height: 480)
        let keyframe = Keyframe(
            id: 0, name: "kf0", camera: keyframeCamera, camFromMap: Rigid3(translation: Vec3(0, 0, 0.5)),
            keypoints: [SIMD2<Float>](repeating: .zero, count: n), descriptors: bytes,
            pointIndices: (0..<n).map { Int32($0) })
        let data = MapData(
            code: "MAP_PROJECTION01", name: "wall", featureConfig: FeatureConfigID(name: "orb-2000", version: 1),
            descriptorBytes: 32, positions: positions, colors: [UInt8](repeating: 128, count: 3 * n),
            pointDescriptors: bytes, keyframes: [keyframe])
        let map = try LocalizationMap(data)
        var keypoints: [Keypoint] = []
        var query: [UInt8] = []
        for i in 0..<n {
            let u = camera.project(truth.transform(positions[i]))!
            keypoints.append(
                Keypoint(
                    x: Float(u.x + 0.3 * rng.nextGaussian()), y: Float(u.y + 0.3 * rng.nextGaussian()), size: 31,
                    angle: 0, response: 1, octave: 0))
            var d = Array(bytes[(32 * i)..<(32 * i + 32)])
            for _ in 0..<12 {
                let bit = rng.nextInt(below: 256)
                d[bit / 8] ^= UInt8(1 << (bit % 8))
            }
            query += d
        }
        for _ in 0..<200 {
            keypoints.append(
                Keypoint(
                    x: Float(rng.nextUnit() * 640), y: Float(rng.nextUnit() * 480), size: 31, angle: 0, response: 1,
                    octave: 0))
            for _ in 0..<32 { query.append(UInt8(truncatingIfNeeded: rng.next())) }
        }
        return Scene(map: map, keypoints: keypoints, descriptors: BinaryDescriptors(bytes: query), pointCount: n)
    }

    static func verification(_ s: Scene) -> ProjectionVerification {
        ProjectionVerification(
            QueryFeatures(keypoints: s.keypoints, descriptors: s.descriptors, camera: camera), map: s.map)
    }

    static func matcher(_ s: Scene) -> ProjectionMatching {
        ProjectionMatching(keypoints: s.keypoints, descriptors: s.descriptors, map: s.map, camera: camera)
    }

    @Test func theTruePoseFindsEveryCorrespondenceAndNothingElse() throws {
        let s = try Self.scene()
        let matches = Self.matcher(s).matches(pose: Self.truth, radius: 4)
        // Every visible point once, each with its own keypoint; the 200 unrelated keypoints match nothing.
        #expect(matches.count == s.pointCount)
        #expect(matches.allSatisfy { Int($0.query) == Int($0.train) })
        #expect(Set(matches.map(\.train)).count == matches.count)
    }

    @Test func aWrongPosePredictsAlmostNothing() throws {
        let s = try Self.scene()
        let shifted = CameraPose(Rigid3(translation: Vec3(0.4, 0, 0)))
        #expect(Self.matcher(s).matches(pose: shifted, radius: 4).count <= 3)
        let verified = Self.verification(s).verify(
            pose: shifted, support: 12, weightByScale: true, options: AbsolutePoseOptions())
        #expect(verified == nil)
    }

    @Test func pointsSeenFromBehindTheirSurfaceAreNotProjected() throws {
        let s = try Self.scene()
        // The same image as if taken from the far side of the wall, looking back (turned half a circle
        // about Y, 6 m further): every point projects into the image, but from the side no keyframe saw.
        let behind = CameraPose(
            Rigid3(rotation: Quaternion(axis: Vec3(0, 1, 0), angle: .pi), translation: Vec3(0, 0, 6)))
        var projected = 0
        for x in s.map.data.positions where Self.camera.project(behind.transform(x)) != nil { projected += 1 }
        #expect(projected == s.pointCount)
        #expect(Self.matcher(s).matches(pose: behind, radius: 40).isEmpty)
    }

    @Test func verificationRecoversThePoseFromAnApproximateOne() throws {
        let s = try Self.scene()
        let approximate = CameraPose(
            Rigid3(rotation: Quaternion(axis: Vec3(0, 1, 0), angle: 0.4 * .pi / 180), translation: Vec3(0.02, -0.01, 0))
        )
        let verified = try #require(
            Self.verification(s).verify(
                pose: approximate, support: 12, weightByScale: true, options: AbsolutePoseOptions()))
        #expect(verified.support == s.pointCount)
        let e = try #require(verified.result.camFromWorld).error(to: Self.truth)
        #expect(e.positionMeters < 0.005)
        #expect(e.rotationDegrees < 0.1)  // a frontal plane couples rotation with sideways translation
    }

    @Test func keypointScalesAreTheLevelDecimationForORBAndTheOctaveForSIFT() {
        func keypoint(size: Float, octave: Int32) -> Keypoint {
            Keypoint(x: 10, y: 10, size: size, angle: 0, response: 1, octave: octave)
        }
        // ORB: size = 31 × 1.2^level.
        let orb = [keypoint(size: 31, octave: 0), keypoint(size: 37.2, octave: 1), keypoint(size: 44.64, octave: 2)]
        let orbScales = ProjectionMatching.pyramidScales(orb)
        #expect(zip(orbScales, [1, 1.2, 1.44]).allSatisfy { abs($0 - $1) < 1e-5 })
        // SIFT: a blob's size grows with its layer too; only the octave's sampling sets the position's σ.
        let sift = [
            keypoint(size: 2.1, octave: -1), keypoint(size: 9.5, octave: -1), keypoint(size: 5, octave: 0),
            keypoint(size: 30, octave: 1), keypoint(size: 41, octave: 2),
        ]
        #expect(ProjectionMatching.pyramidScales(sift, sift: true) == [1, 1, 1, 2, 4])
    }
}
