import Testing
import VPSFeatures
import VPSGeometry
import VPSTestSupport

@testable import VPSLocalizer

/// A rig's σ (`PoseTightening`) rests on the frames whose correspondences confirm the pose: a few
/// matches in a frame far from where the others see the map must not pin the pose's turn about
/// that region.
@Suite struct RigSigmaTests {
    static let camera = Camera(fx: 800, fy: 800, cx: 512, cy: 384, width: 1024, height: 768)

    /// Frame 1 sits 10 m to the side of frame 0 and sees `seen` points on a 2 m patch 6 m ahead of it;
    /// frame 0 sees `far` points of its own patch. Observations carry 0.3 px of noise; the map is in
    /// frame 0's coordinates (`firstFromMap` = identity).
    static func sigma(far: Int, seen: Int = 80) -> (position: Double, rotation: Double, inliers: Int) {
        var rng = SplitMix64(seed: 11)
        let offset = CameraPose(rotation: .identity, translation: Vec3(-10, 0, 0))
        var query = QueryFeatures(
            keypoints: [], descriptors: BinaryDescriptors(words: []), camera: Self.camera)
        var second = query.frames[0]
        second.camFromFirst = offset
        query.frames.append(second)
        var c = Correspondences()
        for (k, count, center) in [(0, far, Vec3(0, 0, 6)), (1, seen, Vec3(10, 0, 6))] {
            for _ in 0..<count {
                let x = center + Vec3(rng.nextUnit() * 2 - 1, rng.nextUnit() * 2 - 1, rng.nextUnit() * 0.5)
                let p = query.frames[k].camFromFirst.transform(x)
                let noise = Vec2(rng.nextGaussian(), rng.nextGaussian()) * 0.3
                c.pixels.append(Vec2(800 * p.x / p.z + 512, 800 * p.y / p.z + 384) + noise)
                c.points.append(x)
                c.pointIndices.append(Int32(c.points.count - 1))
                c.frames.append(k)
                c.features.append(Int32(c.points.count - 1))
                c.sigmas.append(1)
            }
        }
        let tight = PoseTightening(
            pose: .identity, correspondences: c, query: query, map: nil, weightByScale: true, drift: .none)
        return (tight.positionSigma, tight.rotationSigmaDegrees, tight.inlierCount)
    }

    @Test func aFewMatchesInADistantFrameDoNotNarrowTheRigsSigma() {
        let alone = Self.sigma(far: 0)
        let few = Self.sigma(far: 8)
        let confirming = Self.sigma(far: 40)
        #expect(few.inliers == 88 && confirming.inliers == 120)
        // Frame 0's 8 matches are used by the pose, not by its σ: frame 1's patch, 10 m away, leaves
        // frame 0's position to the turn about it (σp ≈ 10 m × σr).
        #expect(abs(few.position / alone.position - 1) < 0.15, "\(few) vs \(alone)")
        #expect(few.position > 0.02)
        // 40 matches of its own confirm frame 0 and pin it down.
        #expect(confirming.position < few.position / 2, "\(confirming) vs \(few)")
        #expect(confirming.rotation < few.rotation)
    }
}
