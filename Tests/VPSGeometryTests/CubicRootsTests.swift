import Testing
import VPSTestSupport

@testable import VPSGeometry

/// `realRootsOfMonicCubic`, behind P3P's degenerate conic: every real root, to rounding, whichever
/// form (Cardano's with one cube root, or the trigonometric one) finds them.
@Suite struct CubicRootsTests {
    /// The monic cubic with roots r (real) and s ± t·i, as (b, c, d) of x³ + b x² + c x + d.
    static func coefficients(real r: Double, pair s: Double, _ t: Double) -> (Double, Double, Double) {
        let q = s * s + t * t
        return (-(r + 2 * s), 2 * r * s + q, -r * q)
    }

    @Test func oneRealRootAcrossSignsAndScales() {
        var rng = SplitMix64(testName: "CubicRoots.one")
        for _ in 0..<2_000 {
            let scale = [1e-3, 1.0, 1e3][rng.nextInt(below: 3)]
            let r = (2 * rng.nextUnit() - 1) * scale
            let s = (2 * rng.nextUnit() - 1) * scale, t = (0.05 + rng.nextUnit()) * scale
            let (b, c, d) = Self.coefficients(real: r, pair: s, t)
            let found = realRootsOfMonicCubic(b, c, d)
            #expect(found.count == 1)
            #expect(abs(found.roots.0 - r) <= 1e-9 * scale, "r \(r), s \(s), t \(t): \(found.roots.0)")
        }
    }

    @Test func threeRealRoots() {
        var rng = SplitMix64(testName: "CubicRoots.three")
        for _ in 0..<2_000 {
            let roots = (0..<3).map { _ in 20 * rng.nextUnit() - 10 }.sorted()
            guard roots[1] - roots[0] > 1e-3, roots[2] - roots[1] > 1e-3 else { continue }
            let b = -(roots[0] + roots[1] + roots[2])
            let c = roots[0] * roots[1] + roots[0] * roots[2] + roots[1] * roots[2]
            let d = -roots[0] * roots[1] * roots[2]
            let found = realRootsOfMonicCubic(b, c, d)
            #expect(found.count == 3)
            let got = [found.roots.0, found.roots.1, found.roots.2].sorted()
            for k in 0..<3 { #expect(abs(got[k] - roots[k]) <= 1e-8, "\(roots) → \(got)") }
        }
    }

    @Test func depressedCubicsWithoutQuadraticTerm() {
        // x³ + x − 2 = (x − 1)(x² + x + 2); x³ − 3x + 2 = (x − 1)²(x + 2); x³ = 0.
        #expect(abs(realRootsOfMonicCubic(0, 1, -2).roots.0 - 1) < 1e-12)
        let double = realRootsOfMonicCubic(0, -3, 2)
        let all = [double.roots.0, double.roots.1, double.roots.2].prefix(double.count).sorted()
        #expect(abs(all.first! + 2) < 1e-9 && abs(all.last! - 1) < 1e-6)
        #expect(realRootsOfMonicCubic(0, 0, 0).roots.0 == 0)
    }
}
