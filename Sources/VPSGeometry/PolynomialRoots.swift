/// The real roots of a univariate polynomial inside an interval, in increasing order.
///
/// The polynomial is `p(x) = coefficients[0] + coefficients[1]·x + … + coefficients[n]·xⁿ` (lowest power first).
/// Roots are isolated with the derivative cascade that follows from Rolle's theorem: between two consecutive real
/// roots of `p⁽ᵏ⁺¹⁾` the derivative `p⁽ᵏ⁾` is monotonic, so it has at most one root there. Starting from the linear
/// `p⁽ⁿ⁻¹⁾` and descending to `p` itself, every piece with a sign change is searched by a safeguarded Newton
/// iteration (Newton steps that stay inside the bracket and shrink it fast enough, bisection otherwise), which
/// converges to full precision. A point whose value lies within the a-priori rounding-error bound of Horner's rule,
/// `2n·u·Σ|aᵢ||x|ⁱ` with `u` the unit roundoff, counts as a root, so roots of even multiplicity (which touch zero
/// without a sign change) are found too.
///
/// Roots are clipped to `range` and to Fujiwara's bound on the modulus of all roots, so an unbounded `range` is
/// fine. Each root is reported once: a multiple root, or a cluster of roots closer than rounding can separate,
/// may come back as one root (accurate to about `ε^(1/m)` for multiplicity `m`). Leading zero coefficients are
/// ignored; constant polynomials (including the zero polynomial) have no isolated roots and return none, as do
/// coefficients that are not all finite.
///
/// This is the convenience form; it allocates the returned array. Solvers on hot paths use the buffer form,
/// ``realRoots(of:in:into:roundingSlack:)``, which does not touch the heap.
///
/// - Parameters:
///   - coefficients: Polynomial coefficients, constant term first.
///   - range: The closed interval to search; defaults to the whole real line.
///   - roundingSlack: A point counts as a root when its value is within this multiple of the Horner rounding
///     bound (default 1). Raise it when the coefficients carry error of their own, as when they come out of an
///     elimination, so that double roots blurred by that error are still found; spurious extra roots near
///     almost-touching extrema are the price.
/// - Returns: The distinct real roots in `range`, increasing.
/// - Complexity: At most O(n²) bracketed searches for degree `n`, each a handful of O(n) Horner evaluations
///   (Newton converges quadratically; at most 100 steps); about a microsecond for degree 8 in release builds.
public func realRoots(
    of coefficients: [Double], in range: ClosedRange<Double> = -Double.infinity...Double.infinity,
    roundingSlack: Double = 1
) -> [Double] {
    coefficients.withUnsafeBufferPointer { c in
        withUnsafeTemporaryAllocation(of: Double.self, capacity: max(c.count, 1)) { out in
            let count = realRoots(of: c, in: range, into: out, roundingSlack: roundingSlack)
            return Array(out[0..<count])
        }
    }
}

/// The real roots of a univariate polynomial inside an interval, written into a caller-provided buffer.
///
/// Same algorithm and conventions as ``realRoots(of:in:roundingSlack:)``; see there. The only memory used besides
/// `roots` is a small temporary (stack) allocation of about `n²/2 + 2n` doubles.
///
/// - Parameters:
///   - coefficients: Polynomial coefficients, constant term first.
///   - range: The closed interval to search (the bounds may be infinite).
///   - roots: Receives the distinct real roots in `range`, increasing. Must have room for `n` roots, where `n`
///     is the degree after dropping leading zero coefficients.
///   - roundingSlack: Multiple of the Horner rounding bound within which a value counts as zero (default 1); see
///     ``realRoots(of:in:roundingSlack:)``.
/// - Returns: The number of roots written to the front of `roots`.
/// - Complexity: As ``realRoots(of:in:roundingSlack:)``.
public func realRoots(
    of coefficients: UnsafeBufferPointer<Double>, in range: ClosedRange<Double>,
    into roots: UnsafeMutableBufferPointer<Double>, roundingSlack: Double = 1
) -> Int {
    var n = coefficients.count - 1
    while n >= 0 && coefficients[n] == 0 { n -= 1 }
    guard n >= 1 else { return 0 }
    precondition(roots.count >= n, "realRoots: the output buffer needs room for \(n) roots")
    for i in 0...n where !coefficients[i].isFinite { return 0 }

    let bound = fujiwaraBound(coefficients, degree: n)
    let lo = max(range.lowerBound, -bound)
    let hi = min(range.upperBound, bound)
    guard lo <= hi else { return 0 }

    if n == 1 {
        let x = -coefficients[0] / coefficients[1]
        guard x >= lo && x <= hi else { return 0 }
        roots[0] = x
        return 1
    }

    // Work space: the scaled derivatives T_k = p⁽ᵏ⁾/k! for k = 0...n (T_k has degree n - k, stored lowest power
    // first at offset k(2n + 3 - k)/2), then two buffers of critical points.
    let tableSize = (n + 1) * (n + 2) / 2
    return withUnsafeTemporaryAllocation(of: Double.self, capacity: tableSize + 2 * (n + 1)) { work in
        let base = work.baseAddress!
        var offset = 0
        for k in 0...n {
            // T_k[i] = a[i + k] · C(i + k, k).
            var binomial = 1.0
            for i in 0...(n - k) {
                if i > 0 { binomial = binomial * Double(i + k) / Double(i) }
                base[offset + i] = coefficients[i + k] * binomial
            }
            offset += n - k + 1
        }
        func derivative(_ k: Int) -> UnsafeMutablePointer<Double> { base + (k * (2 * n + 3 - k) / 2) }

        var current = base + tableSize
        var next = current + (n + 1)
        // The linear T_{n-1} has its root in closed form.
        let linear = derivative(n - 1)
        var count = 0
        let x0 = -linear[0] / linear[1]
        if x0 > lo && x0 < hi {
            current[0] = x0
            count = 1
        }
        var k = n - 2
        while k >= 0 {
            let t = derivative(k)
            let degree = n - k
            let keepBounds = k == 0
            var nextCount = 0

            func append(_ x: Double) {
                guard keepBounds || (x > lo && x < hi) else { return }
                if nextCount > 0 && next[nextCount - 1] == x { return }
                next[nextCount] = x
                nextCount += 1
            }

            // A first guess for the root next to a critical point c of T_k (where T_k' = 0) from the quadratic
            // model T_k(c) + T_k''(c)·(x − c)²/2, with T_k'' = (k + 1)(k + 2)·T_{k+2}; nan when it does not apply.
            func guessNearCritical(_ c: Double, value: Double, direction: Double) -> Double {
                let curvature = Double((k + 1) * (k + 2)) * evaluate(derivative(k + 2), degree: degree - 2, at: c)
                let squared = -2 * value / curvature
                return squared > 0 ? c + direction * squared.squareRoot() : .nan
            }

            // Points are lo, the critical points, then hi. A point whose value is within the rounding bound is a
            // root and its neighbouring pieces need no search; one merely within the slack is reported only when no
            // neighbouring piece changes sign (a near-touching extremum rather than two close crossings).
            var previousX = lo
            var (previousF, previousBound) = evaluateWithBound(t, degree: degree, at: lo)
            var previousIsZero = abs(previousF) <= previousBound
            var previousIsNearZero = abs(previousF) <= roundingSlack * previousBound
            var previousChangesOnLeft = false
            for j in 0...count {
                let x = j < count ? current[j] : hi
                let (f, bound) = evaluateWithBound(t, degree: degree, at: x)
                let isZero = abs(f) <= bound
                let changes = !previousIsZero && !isZero && ((previousF < 0 && f > 0) || (previousF > 0 && f < 0))
                if previousIsZero || (previousIsNearZero && !previousChangesOnLeft && !changes) { append(previousX) }
                if changes {
                    // Interior points are critical points; start from the one nearer to zero.
                    let leftCritical = j > 0
                    let rightCritical = j < count
                    var guess = Double.nan
                    if leftCritical && (!rightCritical || abs(previousF) <= abs(f)) {
                        guess = guessNearCritical(previousX, value: previousF, direction: 1)
                    } else if rightCritical {
                        guess = guessNearCritical(x, value: f, direction: -1)
                    }
                    append(refineRoot(t, degree: degree, between: previousX, x, values: previousF, f, guess: guess))
                }
                previousX = x
                previousF = f
                previousIsZero = isZero
                previousIsNearZero = abs(f) <= roundingSlack * bound
                previousChangesOnLeft = changes
            }
            if previousIsZero || (previousIsNearZero && !previousChangesOnLeft) { append(previousX) }
            swap(&current, &next)
            count = nextCount
            k -= 1
        }
        // Adding zero turns a root of -0.0 (from a range bound) into 0.0.
        for i in 0..<count { roots[i] = current[i] + 0 }
        return count
    }
}

/// Fujiwara's bound `2·max(|a_{n-1}/a_n|, |a_{n-2}/a_n|^(1/2), …, |a_0/(2a_n)|^(1/n))` on the modulus of every
/// complex root, slightly inflated so roots on the bound stay inside; capped to the finite range. Zero when every
/// coefficient but the leading one vanishes (all roots are then zero).
private func fujiwaraBound(_ a: UnsafeBufferPointer<Double>, degree n: Int) -> Double {
    let lead = abs(a[n])
    var bound = 0.0
    for i in 1...n {
        var ratio = abs(a[n - i]) / lead
        if i == n { ratio *= 0.5 }
        if ratio == 0 { continue }
        let term = i == 1 ? ratio : (i == 2 ? ratio.squareRoot() : powD(ratio, 1 / Double(i)))
        bound = max(bound, term)
    }
    let inflated = 2 * bound * (1 + 1e-9)
    return inflated.isFinite ? inflated : Double.greatestFiniteMagnitude
}

/// The value of `t[0] + t[1]·x + … + t[degree]·x^degree` by Horner's rule, with a bound on its rounding error.
@inline(__always)
private func evaluateWithBound(
    _ t: UnsafeMutablePointer<Double>, degree: Int, at x: Double
) -> (value: Double, bound: Double) {
    var f = t[degree]
    var e = abs(f)
    let ax = abs(x)
    var i = degree - 1
    while i >= 0 {
        f = f * x + t[i]
        e = e * ax + abs(t[i])
        i -= 1
    }
    return (f, Double(degree) * Double.ulpOfOne * e)
}

/// The value of `t[0] + t[1]·x + … + t[degree]·x^degree` by Horner's rule.
@inline(__always)
private func evaluate(_ t: UnsafeMutablePointer<Double>, degree: Int, at x: Double) -> Double {
    var f = t[degree]
    var i = degree - 1
    while i >= 0 {
        f = f * x + t[i]
        i -= 1
    }
    return f
}

/// The value and first derivative of `t[0] + … + t[degree]·x^degree` by Horner's rule, with the rounding-error
/// bound on the value.
@inline(__always)
private func evaluateWithDerivative(
    _ t: UnsafeMutablePointer<Double>, degree: Int, at x: Double
) -> (value: Double, derivative: Double, bound: Double) {
    var f = t[degree]
    var df = 0.0
    var e = abs(f)
    let ax = abs(x)
    var i = degree - 1
    while i >= 0 {
        df = df * x + f
        f = f * x + t[i]
        e = e * ax + abs(t[i])
        i -= 1
    }
    return (f, df, Double(degree) * Double.ulpOfOne * e)
}

/// The single root of a polynomial that is monotonic on `[a, b]` and has values of opposite signs `fa`, `fb` at
/// the ends, starting from `guess` if it lies inside: Newton steps while they stay inside the bracket and at least
/// halve the step, bisection otherwise. Stops after one more Newton step once the value drops to rounding level,
/// when the step shrinks to a few ulps, or after 100 iterations.
private func refineRoot(
    _ t: UnsafeMutablePointer<Double>, degree: Int, between a: Double, _ b: Double, values fa: Double, _ fb: Double,
    guess: Double
) -> Double {
    // xNeg keeps the end where the polynomial is negative, xPos the end where it is positive.
    var xNeg = fa < 0 ? a : b
    var xPos = fa < 0 ? b : a
    // Start from the guess when it lies inside, else from the regula falsi point (exact for nearly linear pieces).
    var x = guess
    if !(x > a && x < b) { x = a - fa * (b - a) / (fb - fa) }
    if !(x > a && x < b) { x = 0.5 * (a + b) }
    var step = abs(b - a)
    var previousStep = step
    var (f, df, noise) = evaluateWithDerivative(t, degree: degree, at: x)
    for _ in 0..<100 {
        if f < 0 { xNeg = x } else if f > 0 { xPos = x } else { return x }
        let lower = min(xNeg, xPos)
        let upper = max(xNeg, xPos)
        let newton = x - f / df
        // Once the value is indistinguishable from zero, one last Newton step is all rounding allows.
        if abs(f) <= noise { return newton >= lower && newton <= upper ? newton : x }
        if newton > lower && newton < upper && abs(2 * f) <= abs(previousStep * df) {
            previousStep = step
            step = abs(newton - x)
            x = newton
        } else {
            previousStep = step
            step = 0.5 * (upper - lower)
            x = lower + step
        }
        if step <= 2 * Double.ulpOfOne * abs(x) || !(step > 0) { return x }
        (f, df, noise) = evaluateWithDerivative(t, degree: degree, at: x)
    }
    return x
}
