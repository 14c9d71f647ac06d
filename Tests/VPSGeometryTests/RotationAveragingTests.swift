import Testing
import VPSTestSupport

@testable import VPSGeometry

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct RotationAveragingTests {
    /// `q` perturbed by a random rotation vector with independent N(0, σ²) components.
    func perturbed(_ q: Quaternion, sigma: Double, _ rng: inout SplitMix64) -> Quaternion {
        q * Quaternion(rotationVector: sigma * Vec3(rng.gaussian(), rng.gaussian(), rng.gaussian()))
    }

    func negated(_ q: Quaternion) -> Quaternion { Quaternion(x: -q.x, y: -q.y, z: -q.z, w: -q.w) }

    // MARK: SymmetricEigen4

    @Test func eigenDecompositionReconstructsTheMatrix() {
        var rng = SplitMix64(testName: "RotationAveragingTests.eigenDecompositionReconstructsTheMatrix")
        for _ in 0..<200 {
            var m = [[Double]](repeating: [Double](repeating: 0, count: 4), count: 4)
            for i in 0..<4 {
                for j in i..<4 {
                    m[i][j] = rng.uniform(-10...10)
                    m[j][i] = m[i][j]
                }
            }
            let rows = m.map { Vec4($0[0], $0[1], $0[2], $0[3]) }
            let eigen = SymmetricEigen4(rows: rows[0], rows[1], rows[2], rows[3])
            #expect(eigen.values[0] >= eigen.values[1] && eigen.values[1] >= eigen.values[2])
            #expect(eigen.values[2] >= eigen.values[3])
            var worst = 0.0
            for i in 0..<4 {
                for j in 0..<4 {
                    var sum = 0.0
                    for k in 0..<4 { sum += eigen.values[k] * eigen.vectors[k][i] * eigen.vectors[k][j] }
                    worst = max(worst, abs(sum - m[i][j]))
                    let gram = (eigen.vectors[i] * eigen.vectors[j]).sum()
                    worst = max(worst, abs(gram - (i == j ? 1 : 0)))
                }
            }
            #expect(worst < 1e-12)
        }
    }

    @Test func eigenDecompositionOfSpecialMatrices() {
        let diagonal = SymmetricEigen4(rows: Vec4(1, 0, 0, 0), Vec4(0, 4, 0, 0), Vec4(0, 0, -2, 0), Vec4(0, 0, 0, 3))
        #expect(diagonal.values == Vec4(4, 3, 1, -2))
        #expect(diagonal.vectors[0] == Vec4(0, 1, 0, 0))
        #expect(diagonal.vectors[1] == Vec4(0, 0, 0, 1))
        let identity = SymmetricEigen4(rows: Vec4(1, 0, 0, 0), Vec4(0, 1, 0, 0), Vec4(0, 0, 1, 0), Vec4(0, 0, 0, 1))
        #expect(identity.values == Vec4(1, 1, 1, 1))
        // Rank one: q qᵀ has eigenvalue |q|² along q.
        let q = Vec4(1, -2, 3, 0.5)
        let rankOne = SymmetricEigen4(rows: q.x * q, q.y * q, q.z * q, q.w * q)
        let norm2 = (q * q).sum()
        #expect(abs(rankOne.values[0] - norm2) < 1e-12)
        #expect(abs(abs((rankOne.vectors[0] * q).sum()) - norm2.squareRoot()) < 1e-12)
        #expect(abs(rankOne.values[1]) < 1e-12 && abs(rankOne.values[3]) < 1e-12)
    }

    // MARK: Chordal L2 mean

    @Test func averageOfIdenticalRotations() throws {
        var rng = SplitMix64(testName: "RotationAveragingTests.averageOfIdenticalRotations")
        for _ in 0..<50 {
            let q = rng.rotation()
            let mean = try #require(averageRotations([Quaternion](repeating: q, count: 1 + rng.nextInt(below: 9))))
            #expect(mean.angle(to: q) < 1e-12)
            #expect(mean.w >= 0)
            #expect(abs(mean.norm - 1) < 1e-14)
            let median = try #require(robustAverageRotations([q, q, q]))
            #expect(median.angle(to: q) < 1e-12)
        }
    }

    @Test func signMixturesAreTheSameRotation() throws {
        var rng = SplitMix64(testName: "RotationAveragingTests.signMixturesAreTheSameRotation")
        let q = rng.rotation()
        let mixture = [q, negated(q), q, negated(q), negated(q)]
        let mean = try #require(averageRotations(mixture))
        #expect(mean.angle(to: q) < 1e-12)
        #expect(try #require(robustAverageRotations(mixture)).angle(to: q) < 1e-12)
        // Flipping the signs of a spread-out set changes nothing.
        let truth = rng.rotation()
        let samples = (0..<30).map { _ in perturbed(truth, sigma: 0.3, &rng) }
        let flipped = samples.enumerated().map { $0.offset % 3 == 0 ? negated($0.element) : $0.element }
        let weights = (0..<30).map { _ in rng.uniform(0.1...3) }
        let a = try #require(averageRotations(samples, weights: weights))
        let b = try #require(averageRotations(flipped, weights: weights))
        #expect(a.angle(to: b) < 1e-12)
        #expect(abs(a.dot(b) - 1) < 1e-12)  // both canonical, so component-wise equal
        let c = try #require(robustAverageRotations(samples))
        let d = try #require(robustAverageRotations(flipped))
        #expect(c.angle(to: d) < 1e-10)
    }

    @Test func twoRotationsAboutOneAxis() throws {
        // In the plane of q₁ = 1 and q₂ = exp(θ/2 n), Σ wᵢ qᵢqᵢᵀ peaks at the rotation by
        // atan2(w₂ sin θ, w₁ + w₂ cos θ) about n: θ/2 for equal weights.
        let axis = Vec3(1, 2, -2)
        let theta = 1.0
        let pair = [Quaternion.identity, Quaternion(axis: axis, angle: theta)]
        let halfway = try #require(averageRotations(pair))
        #expect(halfway.angle(to: Quaternion(axis: axis, angle: theta / 2)) < 1e-12)
        let weighted = try #require(averageRotations(pair, weights: [1, 3]))
        let expectedAngle = atan2(3 * sin(theta), 1 + 3 * cos(theta))
        #expect(weighted.angle(to: Quaternion(axis: axis, angle: expectedAngle)) < 1e-12)
        let onlySecond = try #require(averageRotations(pair, weights: [0, 2]))
        #expect(onlySecond.angle(to: pair[1]) < 1e-12)
        // For two rotations the L1 median is any point of the geodesic between them; the one found is on it.
        let median = try #require(robustAverageRotations(pair))
        #expect(abs(median.angle(to: pair[0]) + median.angle(to: pair[1]) - theta) < 1e-9)
    }

    @Test func averageOfSmallPerturbationsIsCloseToTheTruth() throws {
        var rng = SplitMix64(testName: "RotationAveragingTests.averageOfSmallPerturbationsIsCloseToTheTruth")
        let sigma = 0.02
        for _ in 0..<20 {
            let truth = rng.rotation()
            let samples = (0..<200).map { _ in perturbed(truth, sigma: sigma, &rng) }
            // The error of a mean of 200 samples is about σ √3 / √200 ≈ 0.0025 rad.
            let mean = try #require(averageRotations(samples))
            #expect(mean.angle(to: truth) < 0.01)
            let median = try #require(robustAverageRotations(samples))
            #expect(median.angle(to: truth) < 0.01)
            let aligned = meanQuaternionAligned(to: samples[199], samples)
            #expect(aligned.angle(to: mean) < 1e-3)
        }
    }

    @Test func invalidInputsReturnNil() {
        let q = Quaternion(axis: Vec3(0, 0, 1), angle: 0.3)
        #expect(averageRotations([]) == nil)
        #expect(robustAverageRotations([]) == nil)
        #expect(averageRotations([q, Quaternion(x: 0, y: 0, z: 0, w: 0)]) == nil)
        #expect(averageRotations([q, Quaternion(x: .nan, y: 0, z: 0, w: 1)]) == nil)
        #expect(robustAverageRotations([q, Quaternion(x: 0, y: .infinity, z: 0, w: 1)]) == nil)
        #expect(averageRotations([q, q], weights: [1]) == nil)
        #expect(averageRotations([q, q], weights: [1, -1]) == nil)
        #expect(averageRotations([q, q], weights: [0, 0]) == nil)
        #expect(averageRotations([q, q], weights: [1, .nan]) == nil)
        // Identity and a half turn, equally weighted: every rotation about that axis in between is a chordal mean.
        #expect(averageRotations([.identity, Quaternion(axis: Vec3(1, 0, 0), angle: .pi)]) == nil)
        // Non-unit inputs are normalized first.
        let scaled = Quaternion(x: 3 * q.x, y: 3 * q.y, z: 3 * q.z, w: 3 * q.w)
        #expect(averageRotations([scaled]).map { $0.angle(to: q) < 1e-12 } == true)
    }

    // MARK: Robust (L1) mean

    @Test func medianResistsOneOutlierInSeven() throws {
        var rng = SplitMix64(testName: "RotationAveragingTests.medianResistsOneOutlierInSeven")
        for _ in 0..<20 {
            let truth = rng.rotation()
            var samples = (0..<6).map { _ in perturbed(truth, sigma: 0.005, &rng) }
            samples.append(truth * Quaternion(axis: rng.unitVector(), angle: .pi / 2))
            let median = try #require(robustAverageRotations(samples))
            let mean = try #require(averageRotations(samples))
            #expect(median.angle(to: truth) < 0.02)
            // The chordal mean moves by about atan2(1, 6) ≈ 0.165 rad towards the outlier.
            #expect(mean.angle(to: truth) > 0.1)
            let inliersOnly = try #require(robustAverageRotations(Array(samples.prefix(6))))
            #expect(median.angle(to: inliersOnly) < 0.01)
        }
    }

    @Test func medianWithExactInliersIsExact() throws {
        var rng = SplitMix64(testName: "RotationAveragingTests.medianWithExactInliersIsExact")
        let truth = rng.rotation()
        let outliers = (0..<2).map { _ in truth * Quaternion(axis: rng.unitVector(), angle: rng.uniform(1...3)) }
        let samples = [Quaternion](repeating: truth, count: 5) + outliers
        let median = try #require(robustAverageRotations(samples, iterations: 100))
        #expect(median.angle(to: truth) < 1e-9)
    }

    // MARK: Hemisphere-aligned mean

    @Test func alignedMeanFlipsIntoTheReferenceHemisphere() {
        let axis = Vec3(0, 0, 1)
        let plus = Quaternion(axis: axis, angle: 0.4)
        let minus = Quaternion(axis: axis, angle: -0.4)
        // The plain sum of plus and −minus would cancel the w part; aligned to the identity they average to it.
        let mean = meanQuaternionAligned(to: .identity, [plus, negated(minus)])
        #expect(mean.angle(to: .identity) < 1e-15)
        #expect(mean.w > 0)
        // The sign of the result follows the reference.
        let newest = negated(Quaternion(axis: axis, angle: 0.1))
        let window = [Quaternion(axis: axis, angle: 0.0), Quaternion(axis: axis, angle: 0.2), newest]
        let windowMean = meanQuaternionAligned(to: newest, window)
        #expect(windowMean.dot(newest) > 0)
        #expect(windowMean.angle(to: Quaternion(axis: axis, angle: 0.1)) < 1e-12)
        // Exact rule: normalized sum of the aligned (unit) quaternions.
        let q1 = Quaternion(x: 0.1, y: 0.2, z: 0.3, w: 0.9).normalized
        let q2 = negated(Quaternion(x: -0.2, y: 0.1, z: 0.4, w: 0.8).normalized)
        let sum = Quaternion(x: q1.x - q2.x, y: q1.y - q2.y, z: q1.z - q2.z, w: q1.w - q2.w)
        let rule = meanQuaternionAligned(to: q1, [q1, q2])
        let expected = sum.normalized
        #expect(abs(rule.x - expected.x) + abs(rule.y - expected.y) + abs(rule.z - expected.z) < 1e-15)
        #expect(abs(rule.w - expected.w) < 1e-15)
    }

    @Test func alignedMeanEdgeCases() {
        let reference = Quaternion(axis: Vec3(1, 1, 0), angle: 0.7)
        #expect(meanQuaternionAligned(to: reference, []) == reference.normalized)
        let q = Quaternion(axis: Vec3(0, 1, 0), angle: 0.2)
        let withJunk = meanQuaternionAligned(
            to: q, [q, Quaternion(x: .nan, y: 0, z: 0, w: 1), .init(x: 0, y: 0, z: 0, w: 0)])
        #expect(withJunk.angle(to: q) < 1e-15)
        let scaled = Quaternion(x: 5 * q.x, y: 5 * q.y, z: 5 * q.z, w: 5 * q.w)
        #expect(meanQuaternionAligned(to: q, [scaled, q]).angle(to: q) < 1e-15)
    }
}
