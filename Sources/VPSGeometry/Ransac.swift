#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Generic LO-RANSAC with MSAC scoring, SPRT verification and adaptive stopping.
///
/// Each iteration draws a minimal sample with a seeded `SplitMix64`, solves it, and verifies each
/// model. With SPRT (Chum & Matas, "Optimal Randomized RANSAC", PAMI 2008), data are visited in a
/// random order (a fixed shuffle entered at a random position per model) and the likelihood ratio of "bad model" to "good model" is updated per
/// datum; the model is dropped once it exceeds the decision threshold A, which is re-derived from
/// the current estimates of the inlier ratio ε and the bad-model consistency δ. A model that
/// survives is scored with MSAC (Torr & Zisserman 2000), `Σ min(eᵢ², τ²)`, stopping early once
/// it cannot beat the best. Every new best model is locally optimised (Chum, Matas & Kittler
/// 2003, LO-RANSAC) through the estimator's `refine`. The loop stops after
/// `log(1 − confidence) / log(1 − ε^m (1 − 1/A))` iterations (ε from the best model, m the sample
/// size), but never before `minIterations` nor after `maxIterations`, and at once when
/// `options.deadline` passes (checked every 16 iterations).
///
/// - Complexity: O(k · (solve + verify)) with verification O(log A / log((1−δ)/(1−ε))) per bad model.
public enum Ransac {
    /// Runs LO-RANSAC on `estimator` with `options`.
    public static func run<E: RansacEstimator>(_ estimator: E, options: RansacOptions) -> RansacResult<E.Model> {
        let n = estimator.dataCount
        let m = estimator.sampleSize
        var stats = RansacStats()
        guard n >= m, m > 0 else {
            return RansacResult(model: nil, inliers: [Bool](repeating: false, count: n), stats: stats)
        }
        var rng = SplitMix64(seed: options.seed)
        let t2 = options.threshold * options.threshold

        // Fixed random visiting order for verification.
        var order = Array(0..<n)
        for i in stride(from: n - 1, to: 0, by: -1) {
            order.swapAt(i, rng.nextInt(below: i + 1))
        }

        // Models are scored through the visiting order a chunk at a time (the estimator's scorer may
        // lay its data out in that order); the decisions are taken datum by datum as before.
        let scorer = estimator.scorer(visiting: order)
        let chunk = RansacScorerChunk.size
        let errors = UnsafeMutablePointer<Double>.allocate(capacity: chunk)
        defer { errors.deallocate() }

        var sprt = SPRTState(solveCost: estimator.solveCostInEvaluations)
        var best: E.Model?
        var bestScore = Double.infinity
        var bestInliers = 0
        var sample = [Int](repeating: 0, count: m)
        var models: [E.Model] = []
        models.reserveCapacity(8)
        var inlierScratch: [Int] = []
        inlierScratch.reserveCapacity(n)
        // Every distinct sample once when they are fewer than the budget (`exhaustiveSmallSets`); then
        // the budget is their number.
        let samples =
            options.exhaustiveSmallSets
            ? Self.allSamples(n: n, m: m, atMost: options.maxIterations).map {
                Self.shuffledSamples($0, m: m, rng: &rng)
            } : nil
        let cap = samples.map { $0.count / m } ?? options.maxIterations
        var maxIterations = cap
        let logFail = log(1 - min(options.confidence, 1 - 1e-12))

        while stats.iterations < maxIterations {
            if stats.iterations & 15 == 0, options.deadline.hasPassed {
                stats.stoppedByDeadline = true
                break
            }
            stats.iterations += 1
            if let samples {
                let first = (stats.iterations - 1) * m
                for j in 0..<m { sample[j] = samples[first + j] }
            } else {
                drawSample(&sample, n: n, rng: &rng)
            }
            models.removeAll(keepingCapacity: true)
            estimator.solveMinimal(sample: sample, into: &models)
            stats.models += models.count
            var improved = false
            // By index: `for model in models` copied every model out through an Optional, a memcpy per
            // hypothesis (by `perf`, about 1 % of a VPS-1 query, nearly all in its competitor search).
            for k in models.indices {
                // SPRT verification.
                if options.useSPRT {
                    var lambda = 1.0
                    var consistent = 0
                    var rejected = false
                    // A random starting point per model keeps good models' rejections independent.
                    var pos = rng.nextInt(below: n)
                    var tested = 0
                    while tested < n && !rejected {
                        let count = min(chunk, n - pos, n - tested)
                        scorer.squaredErrors(models[k], from: pos, count: count, into: errors)
                        for c in 0..<count {
                            tested += 1
                            if errors[c] < t2 {
                                consistent += 1
                                lambda *= sprt.consistentFactor
                            } else {
                                lambda *= sprt.inconsistentFactor
                            }
                            if lambda > sprt.threshold {
                                sprt.recordRejection(consistent: consistent, tested: tested)
                                rejected = true
                                break
                            }
                        }
                        pos += count
                        if pos == n { pos = 0 }
                    }
                    if rejected {
                        stats.sprtRejections += 1
                        continue
                    }
                }
                // MSAC score with early exit.
                stats.fullEvaluations += 1
                var score = 0.0
                var inliers = 0
                var pos = 0
                scoring: while pos < n {
                    let count = min(chunk, n - pos)
                    scorer.squaredErrors(models[k], from: pos, count: count, into: errors)
                    for c in 0..<count {
                        let e = errors[c]
                        if e < t2 {
                            score += e
                            inliers += 1
                        } else {
                            score += t2
                        }
                        if score >= bestScore { break scoring }
                    }
                    pos += count
                }
                guard score < bestScore else { continue }
                best = models[k]
                bestScore = score
                bestInliers = inliers
                improved = true
            }
            if improved, options.localOptimization, var current = best {
                for _ in 0..<max(1, options.localOptimizationRounds) {
                    collectInliers(estimator, current, t2, into: &inlierScratch)
                    guard inlierScratch.count > m,
                        let refined = estimator.refine(current, inliers: inlierScratch, squaredThreshold: t2)
                    else { break }
                    stats.localOptimizations += 1
                    let (score, inliers) = msac(estimator, refined, t2)
                    guard score < bestScore else { break }
                    best = refined
                    current = refined
                    bestScore = score
                    bestInliers = inliers
                }
            }
            if improved {
                let ratio = Double(bestInliers) / Double(n)
                sprt.updateInlierRatio(ratio)
                let pGood = pow(ratio, Double(m)) * (options.useSPRT ? 1 - 1 / sprt.threshold : 1)
                if pGood >= 1 - 1e-12 {
                    maxIterations = min(maxIterations, options.minIterations)
                } else if pGood > 0 {
                    let needed = logFail / log(1 - pGood)
                    maxIterations = min(cap, max(options.minIterations, Int(needed.rounded(.up))))
                }
            }
        }

        var flags = [Bool](repeating: false, count: n)
        if let model = best {
            var count = 0
            for i in 0..<n where estimator.squaredError(model, at: i) < t2 {
                flags[i] = true
                count += 1
            }
            stats.inlierCount = count
            stats.inlierRatio = Double(count) / Double(n)
            stats.score = bestScore
        }
        return RansacResult(model: best, inliers: flags, stats: stats)
    }

    /// Every m-subset of `0..<n` in lexicographic order, flattened (m indices each), when there are at
    /// most `limit`; nil when there are more.
    static func allSamples(n: Int, m: Int, atMost limit: Int) -> [Int]? {
        // C(n, m) = C(n, k), k = min(m, n − m), whose partial products C(n, i), i ≤ k, only grow:
        // stop as soon as one exceeds the limit (no overflow).
        var count = 1
        for i in 0..<min(m, n - m) {
            count = count * (n - i) / (i + 1)
            if count > limit { return nil }
        }
        guard count > 0 else { return nil }
        var flat: [Int] = []
        flat.reserveCapacity(count * m)
        var c = Array(0..<m)
        while true {
            flat.append(contentsOf: c)
            var i = m - 1
            while i >= 0 && c[i] == n - m + i { i -= 1 }
            if i < 0 { break }
            c[i] += 1
            for j in (i + 1)..<m { c[j] = c[j - 1] + 1 }
        }
        return flat
    }

    /// The flattened samples in a seeded random order (Fisher–Yates over whole samples).
    static func shuffledSamples(_ flat: [Int], m: Int, rng: inout SplitMix64) -> [Int] {
        var s = flat
        let count = flat.count / m
        for i in stride(from: count - 1, to: 0, by: -1) {
            let j = rng.nextInt(below: i + 1)
            if i != j { for k in 0..<m { s.swapAt(i * m + k, j * m + k) } }
        }
        return s
    }

    /// Full MSAC score and inlier count of a model.
    static func msac<E: RansacEstimator>(_ e: E, _ model: E.Model, _ t2: Double) -> (Double, Int) {
        var score = 0.0
        var inliers = 0
        for i in 0..<e.dataCount {
            let r = e.squaredError(model, at: i)
            if r < t2 {
                score += r
                inliers += 1
            } else {
                score += t2
            }
        }
        return (score, inliers)
    }

    /// Indices whose squared error is below `t2`.
    static func collectInliers<E: RansacEstimator>(_ e: E, _ model: E.Model, _ t2: Double, into out: inout [Int]) {
        out.removeAll(keepingCapacity: true)
        for i in 0..<e.dataCount where e.squaredError(model, at: i) < t2 { out.append(i) }
    }

    /// Fills `sample` with distinct uniform indices in `0..<n`.
    @inline(__always) static func drawSample(_ sample: inout [Int], n: Int, rng: inout SplitMix64) {
        for k in 0..<sample.count {
            var idx: Int
            repeat {
                idx = rng.nextInt(below: n)
            } while sample[0..<k].contains(idx)
            sample[k] = idx
        }
    }
}

/// Adaptive parameters of Wald's SPRT as RANSAC uses it (Chum & Matas 2008, §3–4).
struct SPRTState {
    /// Probability that a datum is consistent with a good model.
    var epsilon = 0.1
    /// Probability that a datum is consistent with a bad model (estimated from rejections).
    var delta = 0.01
    /// Decision threshold A.
    var threshold = 1.0
    /// Likelihood-ratio factors for a consistent / inconsistent datum.
    var consistentFactor = 1.0
    var inconsistentFactor = 1.0
    /// Time of one minimal solve in units of one datum check, and models per sample.
    let solveCost: Double
    let modelsPerSample = 2.0
    /// Running sums for the δ estimate.
    var rejectedConsistent = 0.0
    var rejectedTested = 0.0

    init(solveCost: Double) {
        self.solveCost = solveCost
        recompute()
    }

    mutating func updateInlierRatio(_ ratio: Double) {
        epsilon = max(ratio, 1e-3)
        recompute()
    }

    mutating func recordRejection(consistent: Int, tested: Int) {
        rejectedConsistent += Double(consistent)
        rejectedTested += Double(tested)
        // Re-estimate δ once enough evidence has accumulated, and only when it moved noticeably.
        if rejectedTested >= 500 {
            let estimate = max(rejectedConsistent / rejectedTested, 1e-4)
            if abs(estimate - delta) / delta > 0.1 {
                delta = estimate
                recompute()
            }
        }
    }

    /// A from A = t_M·C/m_S + 1 + ln A (the paper's eq. 16), iterated to a fixed point.
    mutating func recompute() {
        let d = min(delta, epsilon * 0.5)
        let e = epsilon
        consistentFactor = d / e
        inconsistentFactor = (1 - d) / (1 - e)
        let c = (1 - d) * log((1 - d) / (1 - e)) + d * log(d / e)
        let k = solveCost * c / modelsPerSample + 1
        var a = k
        for _ in 0..<10 { a = k + log(a) }
        threshold = max(a, 1.5)
    }
}
