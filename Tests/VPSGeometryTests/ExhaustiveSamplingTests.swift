import Foundation
import Testing
import VPSTestSupport

@testable import VPSGeometry

/// `RansacOptions.exhaustiveSmallSets`: every minimal sample once when there are no more than the budget.
@Suite struct ExhaustiveSamplingTests {
    @Test func everySubsetOnceInLexicographicOrder() throws {
        let flat = try #require(Ransac.allSamples(n: 7, m: 3, atMost: 35))
        #expect(flat.count == 35 * 3)
        let subsets = stride(from: 0, to: flat.count, by: 3).map { Array(flat[$0..<($0 + 3)]) }
        #expect(subsets.first == [0, 1, 2] && subsets.last == [4, 5, 6])
        #expect(Set(subsets).count == 35)
        #expect(subsets.allSatisfy { $0[0] < $0[1] && $0[1] < $0[2] && $0[2] < 7 })
        #expect(zip(subsets, subsets.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) })
        #expect(Ransac.allSamples(n: 3, m: 3, atMost: 1) == [0, 1, 2])
    }

    @Test func moreSubsetsThanTheBudgetAreDrawnInstead() {
        #expect(Ransac.allSamples(n: 7, m: 3, atMost: 34) == nil)
        // C(2000, 3) ≈ 1.3e9 stops counting at the budget, without overflow or allocation.
        #expect(Ransac.allSamples(n: 2000, m: 3, atMost: 2500) == nil)
        #expect(Ransac.allSamples(n: 1_000_000, m: 8, atMost: 100_000) == nil)
    }

    @Test func theShuffleKeepsEverySample() throws {
        let flat = try #require(Ransac.allSamples(n: 9, m: 3, atMost: 1000))
        var rng = SplitMix64(seed: 7)
        let shuffled = Ransac.shuffledSamples(flat, m: 3, rng: &rng)
        func subsets(_ f: [Int]) -> [[Int]] { stride(from: 0, to: f.count, by: 3).map { Array(f[$0..<($0 + 3)]) } }
        #expect(Set(subsets(shuffled)) == Set(subsets(flat)))
        #expect(shuffled != flat)
    }

    /// 6 true correspondences among 20 (14 are random pixels): 20 of the 1,140 triples are clean.
    /// With a budget of exactly 1,140 the search finds them under every seed — the 6, and only they,
    /// are the inliers — and never draws a sample twice.
    @Test func aSmallSetIsSearchedCompletely() {
        var rng = SplitMix64(testName: "ExhaustiveSampling.small")
        let problem = NoisyPnP(outlierRatio: 0.7, count: 20, rng: &rng)
        #expect(problem.isInlier.filter { $0 }.count == 6)
        for seed in 0..<40 {
            var options = AbsolutePoseOptions()
            options.ransac.seed = UInt64(seed)
            options.ransac.maxIterations = 1140
            options.ransac.useSPRT = false
            options.ransac.exhaustiveSmallSets = true
            options.minInliers = 6
            let result = estimateAbsolutePose(
                pixels: problem.pixels, points: problem.points, camera: problem.camera, options: options)
            #expect(result.ransac.iterations <= 1140)
            #expect(result.inliers == problem.isInlier, "seed \(seed): \(result.ransac)")
        }
    }
}
