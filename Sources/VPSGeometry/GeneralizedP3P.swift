/// Every rig pose that puts three world points on three rays of a multi-camera rig: the minimal generalized
/// absolute pose (gP3P) problem.
///
/// Finds all real `rigFromWorld` poses `(R, t)` with `R·Xᵢ + t = cᵢ + λᵢ·dᵢ` and `λᵢ > 0` for i = 1, 2, 3, where
/// the rays `(cᵢ, dᵢ)` are given in the rig frame (each from a camera whose pose in the rig is known) and `Xᵢ` are
/// world points. There are at most eight solutions.
///
/// A rigid motion preserves distances, so the depths satisfy three quadratics
/// `|cᵢ + λᵢdᵢ − cⱼ − λⱼdⱼ|² = |Xᵢ − Xⱼ|²` for the pairs (1,2), (1,3), (2,3). Eliminating `λ₁` between the first
/// two (the resultant of two monic quadratics in `λ₁`) gives a quartic `G(λ₂, λ₃) = 0`; reducing `G` modulo the
/// third equation `λ₃² + u(λ₂)·λ₃ + v(λ₂) = 0` leaves `A(λ₂)·λ₃ + B(λ₂)`, and the resultant `B² − u·A·B + v·A²` is a
/// univariate octic in `λ₂`, matching Bézout's count 2·2·2 = 8. Its positive real roots come from
/// ``realRoots(of:in:into:roundingSlack:)`` (with slack, so double roots blurred by the elimination's rounding are
/// kept). `λ₃` and then `λ₁` are back-substituted by taking the root of the pair's own quadratic that best
/// satisfies the eliminated equation (both roots when both do, as when two solutions share `λ₂`), and the three
/// depths are polished by Newton's method on the three distance equations. Finally the world triangle is aligned
/// with the triangle of ray points in closed form (orthonormal frames built on the longest edge and the triangle
/// normal). Candidates whose distance residuals stay large, or with a non-positive or non-finite depth, are
/// dropped, and duplicates are merged. The problem is translated and scaled to unit size first, so the answer does
/// not depend on units.
///
/// This is a resultant-based formulation of the problem solved by D. Nistér and H. Stewénius, "A minimal solution
/// to the generalised 3-point pose problem", Journal of Mathematical Imaging and Vision 27(1):67–79, 2007, who
/// reach an octic by intersecting a ruled quartic surface with a circle.
///
/// Preconditions (checked, never trapping): finite input, non-zero directions, three distinct non-collinear world
/// points; otherwise no solution is returned. The central case (all origins equal) is the ordinary P3P problem;
/// the octic is then even in `λ₂` and the solver returns the P3P solutions. Whatever is returned is finite.
///
/// - Parameters:
///   - origins: Ray origins `cᵢ` in the rig frame (camera centres), metres.
///   - directions: Ray directions `dᵢ` in the rig frame; unit length expected (they are normalized anyway).
///   - points: World points `Xᵢ`, metres.
///   - solutions: Receives every solution as a `rigFromWorld` pose (`rotation * world + translation` gives rig
///     coordinates). Appended to; existing elements are kept.
/// - Complexity: O(1): one octic and at most eight candidates, about 2.5 µs in release builds. No heap allocation
///   besides growing `solutions`.
public func solveGeneralizedP3P(
    origins: (Vec3, Vec3, Vec3), directions: (Vec3, Vec3, Vec3), points: (Vec3, Vec3, Vec3),
    into solutions: inout [CameraPose]
) {
    let (x1, x2, x3) = points
    guard x1.isFinite && x2.isFinite && x3.isFinite else { return }
    guard origins.0.isFinite && origins.1.isFinite && origins.2.isFinite else { return }
    let n1 = directions.0.norm
    let n2 = directions.1.norm
    let n3 = directions.2.norm
    guard n1 > 0 && n2 > 0 && n3 > 0 && n1.isFinite && n2.isFinite && n3.isFinite else { return }
    let d1 = directions.0 / n1
    let d2 = directions.1 / n2
    let d3 = directions.2 / n3

    // Squared world distances; the longest edge sets the unit of length.
    let world12 = (x1 - x2).squaredNorm
    let world13 = (x1 - x3).squaredNorm
    let world23 = (x2 - x3).squaredNorm
    let scaleSquared = max(world12, world13, world23)
    guard scaleSquared > 0 && scaleSquared.isFinite else { return }
    // Collinear (or coincident) world points leave a rotation about their line free: no isolated solution.
    guard (x2 - x1).cross(x3 - x1).norm > 1e-12 * scaleSquared else { return }
    let scale = scaleSquared.squareRoot()
    let inverseScale = 1 / scale
    let originCentroid = (origins.0 + origins.1 + origins.2) / 3
    let c1 = (origins.0 - originCentroid) * inverseScale
    let c2 = (origins.1 - originCentroid) * inverseScale
    let c3 = (origins.2 - originCentroid) * inverseScale
    let e12 = world12 / scaleSquared
    let e13 = world13 / scaleSquared
    let e23 = world23 / scaleSquared

    // |wᵢⱼ + λᵢdᵢ − λⱼdⱼ|² = eᵢⱼ with wᵢⱼ = cᵢ − cⱼ, each written as a monic quadratic in one depth.
    let w12 = c1 - c2
    let w13 = c1 - c3
    let w23 = c2 - c3
    // Pair (1,2) in λ₁: λ₁² + p(λ₂)·λ₁ + q(λ₂).
    let p = SmallPolynomial(2 * d1.dot(w12), -2 * d1.dot(d2))
    let q = SmallPolynomial(w12.squaredNorm - e12, -2 * d2.dot(w12), 1)
    // Pair (1,3) in λ₁: λ₁² + (r₀ + r₁λ₃)·λ₁ + (s₀ + s₁λ₃ + λ₃²).
    let r0 = 2 * d1.dot(w13)
    let r1 = -2 * d1.dot(d3)
    let s0 = w13.squaredNorm - e13
    let s1 = -2 * d3.dot(w13)
    // Pair (2,3) in λ₃: λ₃² + u(λ₂)·λ₃ + v(λ₂).
    let u = SmallPolynomial(-2 * d3.dot(w23), -2 * d2.dot(d3))
    let v = SmallPolynomial(w23.squaredNorm - e23, 2 * d2.dot(w23), 1)

    // Resultant in λ₁ of the first two, (q − s)² + (p − r)(p·s − q·r), as Σ gₖ(λ₂)·λ₃ᵏ with g₄ = 1.
    let qMinusS0 = q + SmallPolynomial(-s0)
    let pMinusR0 = p + SmallPolynomial(-r0)
    let a1 = s1 * p - r1 * q
    let a0 = s0 * p - r0 * q
    var g3 = SmallPolynomial(2 * s1) - r1 * p
    var g2 = SmallPolynomial(s1 * s1) - 2 * qMinusS0 + pMinusR0 * p - r1 * a1
    var g1 = (-2 * s1) * qMinusS0 + pMinusR0 * a1 - r1 * a0
    var g0 = qMinusS0 * qMinusS0 + pMinusR0 * a0
    // Reduce modulo λ₃² + u·λ₃ + v, leaving g₁·λ₃ + g₀ (degrees 3 and 4).
    g3 = g3 - u
    g2 = g2 - v
    g2 = g2 - g3 * u
    g1 = g1 - g3 * v
    g1 = g1 - g2 * u
    g0 = g0 - g2 * v
    // Resultant in λ₃ of g₁·λ₃ + g₀ and λ₃² + u·λ₃ + v: the octic in λ₂.
    let octic = g0 * g0 - u * g1 * g0 + v * g1 * g1

    let worldCentroid = (x1 + x2 + x3) / 3
    let firstNew = solutions.count

    /// Polishes one depth triple and, if it is a genuine solution, appends its pose unless already present.
    func accept(_ guess: Vec3) {
        var depths = guess
        let residual = polishDepths(
            &depths, origins: (c1, c2, c3), directions: (d1, d2, d3), distances: (e12, e13, e23))
        let largest = depths.max()
        guard depths.isFinite && depths.min() > 0 && residual <= 1e-9 * (1 + largest) else { return }

        // Ray points back in rig units, then the rigid motion taking the world triangle onto them.
        let rigPoints = (
            origins.0 + (scale * depths.x) * d1, origins.1 + (scale * depths.y) * d2,
            origins.2 + (scale * depths.z) * d3
        )
        guard
            let pose = alignTriangles(
                world: points, rig: rigPoints, worldCentroid: worldCentroid,
                squaredLengths: (world12, world13, world23)),
            pose.isFinite
        else { return }
        let mismatch = max(
            (pose.transform(x1) - rigPoints.0).norm, (pose.transform(x2) - rigPoints.1).norm,
            (pose.transform(x3) - rigPoints.2).norm)
        guard mismatch <= 1e-6 * scale * (1 + largest) else { return }
        for k in firstNew..<solutions.count {
            let other = solutions[k]
            if (other.translation - pose.translation).norm <= 1e-9 * (scale + pose.translation.norm)
                && (other.rotation - pose.rotation).frobeniusNorm <= 1e-9
            {
                return
            }
        }
        solutions.append(pose)
    }

    withUnsafeTemporaryAllocation(of: Double.self, capacity: 17) { buffer in
        for i in 0...8 { buffer[i] = octic[i] }
        let rootCount = realRoots(
            of: UnsafeBufferPointer(rebasing: buffer[0..<9]), in: 0...Double.infinity,
            into: UnsafeMutableBufferPointer(rebasing: buffer[9..<17]), roundingSlack: 100)
        for index in 0..<rootCount {
            let lambda2 = buffer[9 + index]
            // λ₃: the root of the (2,3) quadratic that best satisfies g₁·λ₃ + g₀ = 0; both roots when both do,
            // which happens when two solutions share λ₂ (then g₁ = g₀ = 0 there).
            let a = g1(lambda2)
            let b = g0(lambda2)
            let y = monicQuadraticRoots(u(lambda2), v(lambda2))
            let yMisfit = (abs(a * y.0 + b), abs(a * y.1 + b))
            let yScale = g1.magnitude(at: lambda2) * max(abs(y.0), abs(y.1)) + g0.magnitude(at: lambda2)
            let yBoth = y.0 != y.1 && max(yMisfit.0, yMisfit.1) <= 1e-6 * yScale
            let yOrdered = yMisfit.0 <= yMisfit.1 ? y : (y.1, y.0)
            for yChoice in 0..<(yBoth ? 2 : 1) {
                let lambda3 = yChoice == 0 ? yOrdered.0 : yOrdered.1
                // λ₁: the root of the (1,2) quadratic that best satisfies the (1,3) one (both when both do).
                let pValue = p(lambda2)
                let qValue = q(lambda2)
                let rValue = r0 + r1 * lambda3
                let sValue = s0 + (s1 + lambda3) * lambda3
                let x = monicQuadraticRoots(pValue, qValue)
                let xMisfit = (
                    abs((pValue - rValue) * x.0 + qValue - sValue), abs((pValue - rValue) * x.1 + qValue - sValue)
                )
                let xScale = (abs(pValue) + abs(rValue)) * max(abs(x.0), abs(x.1)) + abs(qValue) + abs(sValue)
                let xBoth = x.0 != x.1 && max(xMisfit.0, xMisfit.1) <= 1e-6 * xScale
                let xOrdered = xMisfit.0 <= xMisfit.1 ? x : (x.1, x.0)
                accept(Vec3(xOrdered.0, lambda2, lambda3))
                if xBoth { accept(Vec3(xOrdered.1, lambda2, lambda3)) }
            }
        }
    }
}

/// A polynomial of degree at most 8 in one variable, with inline storage (no heap), lowest power first.
///
/// `degree` is the nominal degree tracked through the arithmetic (coefficients above it are zero). Coefficients
/// live in a homogeneous tuple reached through a pointer, which compiles to plain memory accesses.
private struct SmallPolynomial {
    /// Coefficients, lowest power first.
    private var storage: (Double, Double, Double, Double, Double, Double, Double, Double, Double) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0)
    /// Nominal degree.
    private(set) var degree: Int

    /// The zero polynomial of nominal degree `degree`.
    init(degree: Int) {
        precondition(degree >= 0 && degree <= 8, "SmallPolynomial holds degrees 0...8")
        self.degree = degree
    }

    init(_ c0: Double) {
        degree = 0
        storage.0 = c0
    }

    init(_ c0: Double, _ c1: Double) {
        degree = 1
        storage.0 = c0
        storage.1 = c1
    }

    init(_ c0: Double, _ c1: Double, _ c2: Double) {
        degree = 2
        storage.0 = c0
        storage.1 = c1
        storage.2 = c2
    }

    /// Runs `body` on the nine coefficients as contiguous memory (a homogeneous tuple is laid out like an array,
    /// and its memory is bound to its element type).
    @inline(__always) mutating func withCoefficients<R>(_ body: (UnsafeMutablePointer<Double>) -> R) -> R {
        withUnsafeMutablePointer(to: &storage) {
            body(UnsafeMutableRawPointer($0).assumingMemoryBound(to: Double.self))
        }
    }

    /// Coefficient of `xⁱ`, `i` in 0...8.
    subscript(i: Int) -> Double {
        precondition(i >= 0 && i <= 8, "SmallPolynomial holds degrees 0...8")
        var copy = self
        return copy.withCoefficients { $0[i] }
    }

    /// The value at `x` (Horner's rule).
    @inline(__always) func callAsFunction(_ x: Double) -> Double {
        var copy = self
        return copy.withCoefficients { c in
            var value = c[degree]
            var i = degree - 1
            while i >= 0 {
                value = value * x + c[i]
                i -= 1
            }
            return value
        }
    }

    /// `Σ|cᵢ|·|x|ⁱ`, the size of the terms summed in the value at `x`.
    func magnitude(at x: Double) -> Double {
        var copy = self
        let ax = abs(x)
        return copy.withCoefficients { c in
            var value = abs(c[degree])
            var i = degree - 1
            while i >= 0 {
                value = value * ax + abs(c[i])
                i -= 1
            }
            return value
        }
    }

    /// `a + s·b`, the one linear operation the elimination needs.
    private static func combine(_ a: SmallPolynomial, _ s: Double, _ b: SmallPolynomial) -> SmallPolynomial {
        var x = a
        var y = b
        var result = SmallPolynomial(degree: max(a.degree, b.degree))
        x.withCoefficients { xc in
            y.withCoefficients { yc in
                result.withCoefficients { rc in
                    // Coefficients above a polynomial's degree are zero, so all nine can be combined.
                    for i in 0...8 { rc[i] = xc[i] + s * yc[i] }
                }
            }
        }
        return result
    }

    static func + (a: SmallPolynomial, b: SmallPolynomial) -> SmallPolynomial { combine(a, 1, b) }

    static func - (a: SmallPolynomial, b: SmallPolynomial) -> SmallPolynomial { combine(a, -1, b) }

    static func * (s: Double, a: SmallPolynomial) -> SmallPolynomial { combine(SmallPolynomial(degree: 0), s, a) }

    static func * (a: SmallPolynomial, b: SmallPolynomial) -> SmallPolynomial {
        var x = a
        var y = b
        var product = SmallPolynomial(degree: a.degree + b.degree)
        x.withCoefficients { xc in
            y.withCoefficients { yc in
                product.withCoefficients { pc in
                    for i in 0...a.degree {
                        let xi = xc[i]
                        for j in 0...b.degree { pc[i + j] += xi * yc[j] }
                    }
                }
            }
        }
        return product
    }
}

/// The two roots of `x² + b·x + c`, computed without cancellation; a negative discriminant (which rounding can
/// produce at a double root) is clamped to zero, giving the real part twice.
@inline(__always)
private func monicQuadraticRoots(_ b: Double, _ c: Double) -> (Double, Double) {
    let discriminant = max(b * b - 4 * c, 0)
    let root = discriminant.squareRoot()
    let half = -0.5 * (b >= 0 ? b + root : b - root)
    guard half != 0 else { return (-0.5 * b, -0.5 * b) }
    return (half, c / half)
}

/// Newton's method on the three distance equations `|cᵢ + λᵢdᵢ − cⱼ − λⱼdⱼ|² = eᵢⱼ`.
///
/// Keeps the best iterate seen (smallest largest residual), so a nearly singular Jacobian can never make the
/// depths worse than the starting guess.
///
/// - Returns: The largest absolute residual at the returned depths.
private func polishDepths(
    _ depths: inout Vec3, origins c: (Vec3, Vec3, Vec3), directions d: (Vec3, Vec3, Vec3),
    distances e: (Double, Double, Double)
) -> Double {
    var current = depths
    var bestResidual = Double.infinity
    var converged = false
    for iteration in 0..<6 {
        let p1 = c.0 + current.x * d.0
        let p2 = c.1 + current.y * d.1
        let p3 = c.2 + current.z * d.2
        let v12 = p1 - p2
        let v13 = p1 - p3
        let v23 = p2 - p3
        let f = Vec3(v12.squaredNorm - e.0, v13.squaredNorm - e.1, v23.squaredNorm - e.2)
        let residual = max(abs(f.x), abs(f.y), abs(f.z))
        if residual < bestResidual {
            bestResidual = residual
            depths = current
        }
        if converged || iteration == 5 || !residual.isFinite { break }
        let jacobian = Mat3(
            rows: Vec3(2 * v12.dot(d.0), -2 * v12.dot(d.1), 0),
            Vec3(2 * v13.dot(d.0), 0, -2 * v13.dot(d.2)),
            Vec3(0, 2 * v23.dot(d.1), -2 * v23.dot(d.2)))
        guard let inverse = jacobian.inverse else { break }
        let step = inverse * f
        guard step.isFinite else { break }
        current -= step
        let stepSize = max(abs(step.x), abs(step.y), abs(step.z))
        converged = stepSize <= 1e-13 * max(1, abs(current.x), abs(current.y), abs(current.z))
    }
    return bestResidual
}

/// The rigid motion taking the world triangle onto the rig triangle, from orthonormal frames built on the longest
/// world edge and the triangle normal; nil when either triangle has no well-defined normal.
private func alignTriangles(
    world: (Vec3, Vec3, Vec3), rig: (Vec3, Vec3, Vec3), worldCentroid: Vec3,
    squaredLengths: (Double, Double, Double)
) -> CameraPose? {
    // Order the vertices so the first edge is the longest.
    let (wa, wb, wc, ra, rb, rc): (Vec3, Vec3, Vec3, Vec3, Vec3, Vec3)
    if squaredLengths.0 >= squaredLengths.1 && squaredLengths.0 >= squaredLengths.2 {
        (wa, wb, wc, ra, rb, rc) = (world.0, world.1, world.2, rig.0, rig.1, rig.2)
    } else if squaredLengths.1 >= squaredLengths.2 {
        (wa, wb, wc, ra, rb, rc) = (world.0, world.2, world.1, rig.0, rig.2, rig.1)
    } else {
        (wa, wb, wc, ra, rb, rc) = (world.1, world.2, world.0, rig.1, rig.2, rig.0)
    }
    guard let worldFrame = triangleFrame(wa, wb, wc), let rigFrame = triangleFrame(ra, rb, rc) else { return nil }
    let rotation = rigFrame * worldFrame.transposed
    let rigCentroid = (rig.0 + rig.1 + rig.2) / 3
    return CameraPose(rotation: rotation, translation: rigCentroid - rotation * worldCentroid)
}

/// Columns: the unit edge `b − a`, the in-plane unit normal to it, and the unit triangle normal.
@inline(__always)
private func triangleFrame(_ a: Vec3, _ b: Vec3, _ c: Vec3) -> Mat3? {
    let edge = b - a
    let normal = edge.cross(c - a)
    let edgeLength = edge.norm
    let normalLength = normal.norm
    guard edgeLength > 0 && normalLength > 0 else { return nil }
    let f1 = edge / edgeLength
    let f3 = normal / normalLength
    return Mat3(columns: f1, f3.cross(f1), f3)
}
