import Testing
import VPSGeometry
import VPSTestSupport

@testable import VPSLocalizer

/// `PoseTightening.noiseScale`: the a-posteriori noise factor s₀ that scales the pose's σ.
@Suite struct PoseTighteningNoiseTests {
    static let focal = 800.0

    /// `count` points in front of an identity camera, observed with Gaussian noise of `pixels` px per
    /// axis (normalized units = pixels / focal).
    static func problem(count: Int, pixels: Double, seed: UInt64) -> (points: [Vec3], observations: [Vec2]) {
        var rng = SplitMix64(seed: seed)
        var points: [Vec3] = []
        var observations: [Vec2] = []
        for _ in 0..<count {
            let p = Vec3(rng.nextUnit() * 4 - 2, rng.nextUnit() * 3 - 1.5, 3 + rng.nextUnit() * 5)
            points.append(p)
            let noise = Vec2(rng.nextGaussian(), rng.nextGaussian()) * (pixels / focal)
            observations.append(Vec2(p.x / p.z, p.y / p.z) + noise)
        }
        return (points, observations)
    }

    static func s0(count: Int, pixels: Double, weight: Double = 1, seed: UInt64 = 7) -> Double {
        let (points, observations) = problem(count: count, pixels: pixels, seed: seed)
        let identity = CameraPose(rotation: .identity, translation: .zero)
        return PoseTightening.noiseScale(
            pose: identity, points: points, observations: observations, indices: Array(points.indices),
            whitening: points.map { _ in ObservationWhitening(inverseSigma: weight) }, focal: focal,
            camFromFirst: [identity], frames: points.map { _ in 0 })
    }

    @Test func manyCorrespondencesMeasureTheirNoise() {
        // 500 correspondences at 0.5 px: s₀² = (Σ r² + 20) / (994 + 20) ≈ 0.25 · 1000 / 1014 + 0.02.
        #expect(abs(Self.s0(count: 500, pixels: 0.5) - 0.5) < 0.05)
        #expect(abs(Self.s0(count: 500, pixels: 2) - 2) < 0.15)
        // Weights are 1 / σᵢ: the same residuals at σᵢ = 2 px are s₀ = 0.25.
        #expect(abs(Self.s0(count: 500, pixels: 0.5, weight: 0.5) - 0.27) < 0.05)
    }

    @Test func fewCorrespondencesAreShrunkTowardsTheModelledNoise() {
        // 6 exact correspondences (redundancy 6): s₀ = √(20 / 26), not 0.
        #expect(abs(Self.s0(count: 6, pixels: 0) - (20.0 / 26).squareRoot()) < 1e-9)
        // 3 exact correspondences (a minimal fit) carry no redundancy: the prior alone, s₀ = 1.
        #expect(abs(Self.s0(count: 3, pixels: 0) - 1) < 1e-12)
        // 12 correspondences at 0.25 px (redundancy 18) stay well above 0.25.
        let twelve = Self.s0(count: 12, pixels: 0.25)
        #expect(twelve > 0.65 && twelve < 0.8)
    }
}
