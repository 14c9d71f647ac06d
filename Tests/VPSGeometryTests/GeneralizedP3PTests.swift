import Testing
import VPSTestSupport

@testable import VPSGeometry

/// One synthetic gP3P problem with its ground truth.
private struct GeneralizedP3PInstance {
    var origins: (Vec3, Vec3, Vec3)
    var directions: (Vec3, Vec3, Vec3)
    var points: (Vec3, Vec3, Vec3)
    /// The true `rigFromWorld` pose.
    var truth: CameraPose
    /// The true depths along the three rays.
    var depths: Vec3

    /// A rig of three cameras within 0.5 m of the rig origin (or all at the origin when `central`), with random
    /// orientations; one ray from each camera to a point 2–10 m in front of it (within about ±30° of its axis);
    /// a random rig pose within 10 m of the world origin.
    init(_ rng: inout SplitMix64, central: Bool = false) {
        var origins = [Vec3]()
        var directions = [Vec3]()
        var rigPoints = [Vec3]()
        var depths = Vec3.zero
        for i in 0..<3 {
            var position = Vec3.zero
            if !central {
                repeat { position = rng.vector(scale: 0.5) } while position.norm > 0.5
            }
            let rigFromCamera = rng.rotation().matrix
            let inCamera = Vec3(rng.uniform(-0.6...0.6), rng.uniform(-0.6...0.6), 1).normalized
            let direction = rigFromCamera * inCamera
            let depth = rng.uniform(2...10)
            origins.append(position)
            directions.append(direction)
            rigPoints.append(position + depth * direction)
            depths[i] = depth
        }
        let truth = CameraPose(rotation: rng.rotation().matrix, translation: rng.vector(scale: 10))
        let world = rigPoints.map { truth.rotation.transposed * ($0 - truth.translation) }
        self.origins = (origins[0], origins[1], origins[2])
        self.directions = (directions[0], directions[1], directions[2])
        self.points = (world[0], world[1], world[2])
        self.truth = truth
        self.depths = depths
    }

    /// Solves the instance.
    func solve() -> [CameraPose] {
        var solutions = [CameraPose]()
        solveGeneralizedP3P(origins: origins, directions: directions, points: points, into: &solutions)
        return solutions
    }
}

/// True when one of `solutions` is within 1e-6 rad and 1e-6 (relative to the scene) of `truth`.
private func recovers(_ solutions: [CameraPose], _ truth: CameraPose) -> Bool {
    solutions.contains { poseMatches($0, truth) }
}

/// True when `pose` is within 1e-6 rad of `truth` and its centre within 1e-6 relative to the scene.
private func poseMatches(_ pose: CameraPose, _ truth: CameraPose) -> Bool {
    // The quaternion's angle is accurate near zero, unlike acos of the trace.
    let angle = Quaternion(pose.rotation * truth.rotation.transposed).angle
    let position = pose.center.distance(to: truth.center)
    return angle < 1e-6 && position < 1e-6 * max(1, truth.center.norm)
}

@Suite("GeneralizedP3P")
struct GeneralizedP3PTests {
    @Test("recovers the true pose on 10,000 random rigs")
    func recovery() {
        var rng = SplitMix64(testName: "GeneralizedP3P.recovery")
        let trials = 10_000
        var successes = 0
        var solutionCount = 0
        for _ in 0..<trials {
            let instance = GeneralizedP3PInstance(&rng)
            let solutions = instance.solve()
            solutionCount += solutions.count
            if recovers(solutions, instance.truth) { successes += 1 }
            #expect(solutions.count <= 8)
        }
        let rate = Double(successes) / Double(trials)
        print(
            "gP3P recovery: \(successes)/\(trials) = \(rate), mean solutions \(Double(solutionCount) / Double(trials))")
        #expect(rate >= 0.999)
    }

    @Test("every returned pose puts each world point on its ray, in front")
    func residualsVanish() {
        var rng = SplitMix64(testName: "GeneralizedP3P.residualsVanish")
        var worst = 0.0
        for _ in 0..<1_000 {
            let instance = GeneralizedP3PInstance(&rng)
            // The ground truth satisfies the three distance equations the solver is built on.
            let origins = [instance.origins.0, instance.origins.1, instance.origins.2]
            let directions = [instance.directions.0, instance.directions.1, instance.directions.2]
            let points = [instance.points.0, instance.points.1, instance.points.2]
            for (i, j) in [(0, 1), (0, 2), (1, 2)] {
                let rayGap =
                    origins[i] + instance.depths[i] * directions[i] - origins[j]
                    - instance.depths[j] * directions[j]
                #expect(abs(rayGap.norm - points[i].distance(to: points[j])) < 1e-8)
            }
            for pose in instance.solve() {
                for i in 0..<3 {
                    let inRig = pose.transform(points[i])
                    let depth = (inRig - origins[i]).dot(directions[i])
                    let offRay = (origins[i] + depth * directions[i] - inRig).norm
                    worst = max(worst, offRay)
                    #expect(depth > 0)
                    #expect(offRay < 1e-8)
                }
            }
        }
        print("gP3P worst off-ray residual: \(worst) m")
    }

    @Test("the true pose is among the solutions, refined to the ground-truth residual")
    func truthResidual() {
        var rng = SplitMix64(testName: "GeneralizedP3P.truthResidual")
        for _ in 0..<1_000 {
            let instance = GeneralizedP3PInstance(&rng)
            guard let pose = instance.solve().first(where: { poseMatches($0, instance.truth) }) else { continue }
            let rays = [
                (instance.origins.0, instance.directions.0, instance.points.0),
                (instance.origins.1, instance.directions.1, instance.points.1),
                (instance.origins.2, instance.directions.2, instance.points.2),
            ]
            for (i, (origin, direction, point)) in rays.enumerated() {
                let rayPoint = origin + instance.depths[i] * direction
                #expect(pose.transform(point).distance(to: rayPoint) < 1e-8)
            }
        }
    }

    @Test("the solution set does not depend on which ray is eliminated last")
    func permutationInvariance() {
        var rng = SplitMix64(testName: "GeneralizedP3P.permutationInvariance")
        for _ in 0..<1_000 {
            let a = GeneralizedP3PInstance(&rng)
            let solutions = a.solve()
            // Rotating the order of the correspondences changes the variable the octic is in.
            for shift in 1...2 {
                let o = [a.origins.0, a.origins.1, a.origins.2]
                let d = [a.directions.0, a.directions.1, a.directions.2]
                let x = [a.points.0, a.points.1, a.points.2]
                let i = [shift % 3, (shift + 1) % 3, (shift + 2) % 3]
                var rotated = [CameraPose]()
                solveGeneralizedP3P(
                    origins: (o[i[0]], o[i[1]], o[i[2]]), directions: (d[i[0]], d[i[1]], d[i[2]]),
                    points: (x[i[0]], x[i[1]], x[i[2]]), into: &rotated)
                #expect(rotated.count == solutions.count)
                for pose in solutions { #expect(rotated.contains { poseMatches($0, pose) }) }
            }
        }
    }

    @Test("central case (all origins at the rig origin) reduces to P3P")
    func centralCase() {
        var rng = SplitMix64(testName: "GeneralizedP3P.centralCase")
        let trials = 1_000
        var successes = 0
        for _ in 0..<trials {
            let instance = GeneralizedP3PInstance(&rng, central: true)
            let solutions = instance.solve()
            #expect(solutions.count <= 8)
            #expect(solutions.allSatisfy { $0.isFinite })
            if recovers(solutions, instance.truth) { successes += 1 }
        }
        let rate = Double(successes) / Double(trials)
        print("gP3P central recovery: \(successes)/\(trials) = \(rate)")
        #expect(rate >= 0.99)
    }

    @Test("appends to the caller's array and is invariant to the unit of length")
    func appendsAndScales() {
        var rng = SplitMix64(testName: "GeneralizedP3P.appendsAndScales")
        for _ in 0..<100 {
            let instance = GeneralizedP3PInstance(&rng)
            var solutions = [CameraPose.identity]
            solveGeneralizedP3P(
                origins: instance.origins, directions: instance.directions, points: instance.points,
                into: &solutions)
            #expect(solutions.first == .identity)
            let inMetres = Array(solutions.dropFirst())
            // The same scene in millimetres, with directions not of unit length.
            let k = 1000.0
            var inMillimetres = [CameraPose]()
            solveGeneralizedP3P(
                origins: (k * instance.origins.0, k * instance.origins.1, k * instance.origins.2),
                directions: (3 * instance.directions.0, 0.5 * instance.directions.1, 7 * instance.directions.2),
                points: (k * instance.points.0, k * instance.points.1, k * instance.points.2),
                into: &inMillimetres)
            #expect(inMetres.count == inMillimetres.count)
            let scaledTruth = CameraPose(rotation: instance.truth.rotation, translation: k * instance.truth.translation)
            #expect(recovers(inMillimetres, scaledTruth) == recovers(inMetres, instance.truth))
        }
    }

    @Test("two solutions sharing λ₂ (a mirror-symmetric rig) are both found")
    func sharedMiddleDepth() {
        var rng = SplitMix64(testName: "GeneralizedP3P.sharedMiddleDepth")
        var both = 0
        let trials = 200
        for trial in 0..<trials {
            // Rays 1 and 3 are mirror images under x → −x and ray 2 is its own mirror image; with λ₁ + λ₃ chosen
            // so that |P₁P₂| = |P₃P₂|, swapping λ₁ and λ₃ gives a second solution with the same λ₂.
            let central = trial % 2 == 0
            let h = central ? 0 : rng.uniform(0.05...0.5)
            let g = central ? 0 : rng.uniform(-0.3...0.3)
            let c1 = Vec3(-h, 0, rng.uniform(-0.2...0.2))
            let c2 = Vec3(0, g, rng.uniform(-0.2...0.2))
            let c3 = Vec3(h, 0, c1.z)
            let (a, b) = (rng.uniform(0.1...0.6), rng.uniform(-0.4...0.4))
            let d1 = Vec3(-a, b, 1).normalized
            let d3 = Vec3(a, b, 1).normalized
            let d2 = Vec3(0, rng.uniform(-0.5...0.5), 1).normalized
            let lambda2 = rng.uniform(3...8)
            let lambda1 = rng.uniform(3...8)
            // The other root λ of |c₁ + λd₁ − c₂ − λ₂d₂|² = |P₁P₂|², by Vieta.
            let lambda3 = -2 * d1.dot(c1 - c2 - lambda2 * d2) - lambda1
            guard lambda3 > 1, abs(lambda3 - lambda1) > 0.5 else { continue }
            let rig = [c1 + lambda1 * d1, c2 + lambda2 * d2, c3 + lambda3 * d3]
            let truth = CameraPose(rotation: rng.rotation().matrix, translation: rng.vector(scale: 5))
            let world = rig.map { truth.rotation.transposed * ($0 - truth.translation) }
            var solutions = [CameraPose]()
            solveGeneralizedP3P(
                origins: (c1, c2, c3), directions: (d1, d2, d3), points: (world[0], world[1], world[2]),
                into: &solutions)
            #expect(recovers(solutions, truth))
            // The mirrored solution puts world point 1 at depth λ₃ on ray 1 and point 3 at depth λ₁ on ray 3.
            let mirrored = solutions.contains { pose in
                let first = pose.transform(world[0]).distance(to: c1 + lambda3 * d1)
                let third = pose.transform(world[2]).distance(to: c3 + lambda1 * d3)
                return first < 1e-6 && third < 1e-6
            }
            #expect(mirrored)
            if mirrored { both += 1 }
        }
        print("gP3P shared λ₂: both mirrored solutions found in \(both) instances")
    }

    @Test("degenerate input neither traps nor returns non-finite poses")
    func degenerateInput() {
        var rng = SplitMix64(testName: "GeneralizedP3P.degenerateInput")
        let nan = Double.nan
        for _ in 0..<200 {
            let base = GeneralizedP3PInstance(&rng)
            let (c, d, x) = (base.origins, base.directions, base.points)
            let line = rng.unitVector()
            var cases: [((Vec3, Vec3, Vec3), (Vec3, Vec3, Vec3), (Vec3, Vec3, Vec3))] = [
                // Collinear and coincident world points.
                (c, d, (x.0, x.0 + line, x.0 + 2.5 * line)),
                (c, d, (x.0, x.0, x.2)),
                (c, d, (x.0, x.0, x.0)),
                // Zero, non-finite and identical parallel rays.
                (c, (d.0, .zero, d.2), x),
                (c, (d.0, Vec3(nan, 0, 1), d.2), x),
                (c, (d.0, Vec3(.infinity, 0, 0), d.2), x),
                ((c.0, c.0, c.2), (d.0, d.0, d.2), x),
                ((c.0, c.0, c.0), (d.0, d.0, d.0), x),
                ((c.0, c.1, c.2), (d.0, d.0, d.0), x),
                // Non-finite origins and points.
                ((c.0, Vec3(nan, nan, nan), c.2), d, x),
                (c, d, (x.0, x.1, Vec3(0, .infinity, 0))),
                (c, d, (x.0, Vec3(nan, 0, 0), x.2)),
                // Tiny and huge scales.
                (c, d, (1e-300 * x.0, 1e-300 * x.1, 1e-300 * x.2)),
                (c, d, (1e300 * x.0, 1e300 * x.1, 1e300 * x.2)),
                ((1e300 * c.0, c.1, c.2), d, x),
            ]
            // Nearly collinear world points.
            cases.append((c, d, (x.0, x.0 + line, x.0 + 2 * line + 1e-9 * rng.unitVector())))
            for (origins, directions, points) in cases {
                var solutions = [CameraPose]()
                solveGeneralizedP3P(origins: origins, directions: directions, points: points, into: &solutions)
                #expect(solutions.count <= 8)
                #expect(solutions.allSatisfy { $0.isFinite })
            }
        }
    }
}

@Suite("GeneralizedP3P polynomial roots")
struct GeneralizedP3PPolynomialRootTests {
    /// Coefficients (lowest power first) of the monic polynomial with the given roots.
    private func polynomial(roots: [Double]) -> [Double] {
        var c = [1.0]
        for r in roots {
            var next = [Double](repeating: 0, count: c.count + 1)
            for (i, a) in c.enumerated() {
                next[i + 1] += a
                next[i] -= r * a
            }
            c = next
        }
        return c
    }

    @Test("finds known, well-separated roots of degrees 1 to 8")
    func knownRoots() {
        var rng = SplitMix64(testName: "GeneralizedP3P.knownRoots")
        for degree in 1...8 {
            for _ in 0..<200 {
                var truth = [Double]()
                while truth.count < degree {
                    let r = rng.uniform(-10...10)
                    if truth.allSatisfy({ abs($0 - r) > 0.5 }) { truth.append(r) }
                }
                truth.sort()
                let scale = rng.uniform(-3...3)
                let found = realRoots(of: polynomial(roots: truth).map { $0 * scale })
                #expect(found.count == degree)
                guard found.count == degree else { continue }
                for (f, t) in zip(found, truth) { #expect(abs(f - t) < 1e-8 * max(1, abs(t))) }
            }
        }
    }

    @Test("Wilkinson-like product (x − 1)(x − 2)…(x − 8)")
    func wilkinson() {
        let found = realRoots(of: polynomial(roots: (1...8).map(Double.init)))
        #expect(found.count == 8)
        for (i, r) in found.enumerated() { #expect(abs(r - Double(i + 1)) < 1e-9) }
        // Also with roots scaled down, where the coefficients span many orders of magnitude.
        let small = realRoots(of: polynomial(roots: (1...8).map { Double($0) * 1e-3 }))
        #expect(small.count == 8)
        for (i, r) in small.enumerated() { #expect(abs(r - Double(i + 1) * 1e-3) < 1e-12) }
    }

    @Test("multiple roots are found (once each)")
    func multipleRoots() {
        let double = realRoots(of: polynomial(roots: [1, 1, 2]))
        #expect(double.count == 2)
        #expect(double.contains { abs($0 - 1) < 1e-7 })
        #expect(double.contains { abs($0 - 2) < 1e-12 })

        let triple = realRoots(of: polynomial(roots: [-2, 1, 1, 1]))
        #expect(triple.contains { abs($0 + 2) < 1e-12 })
        #expect(triple.contains { abs($0 - 1) < 1e-4 })
        #expect(triple.allSatisfy { abs($0 + 2) < 1e-12 || abs($0 - 1) < 1e-4 })

        let twoDoubles = realRoots(of: polynomial(roots: [-1, -1, 0.5, 0.5]))
        #expect(twoDoubles.count == 2)
        #expect(twoDoubles.contains { abs($0 + 1) < 1e-7 })
        #expect(twoDoubles.contains { abs($0 - 0.5) < 1e-7 })

        // x⁴ (a quadruple root at zero) and (x − 3)⁸.
        #expect(realRoots(of: [0, 0, 0, 0, 1]) == [0])
        let eightfold = realRoots(of: polynomial(roots: [Double](repeating: 3, count: 8)))
        #expect(!eightfold.isEmpty)
        #expect(eightfold.allSatisfy { abs($0 - 3) < 1e-1 })
    }

    @Test("rounding slack finds a double root blurred into a complex pair")
    func roundingSlack() {
        // (x − 1)²(x + 2) lifted by 1e-14: the double root at 1 becomes a complex pair a hair off the axis.
        let lifted = [2 + 1e-14, -3, 0, 1]
        #expect(realRoots(of: lifted).count == 1)
        let slack = realRoots(of: lifted, roundingSlack: 100)
        #expect(slack.count == 2)
        #expect(slack.contains { abs($0 - 1) < 1e-12 })
        // Slack never replaces two genuine close crossings by their extremum.
        let lowered = [2 - 1e-14, -3, 0, 1]
        let crossings = realRoots(of: lowered, roundingSlack: 100)
        #expect(crossings.count == 3)
        #expect(crossings.filter { abs($0 - 1) < 1e-6 }.count == 2)
    }

    @Test("no real roots")
    func noRealRoots() {
        #expect(realRoots(of: [1, 0, 1]).isEmpty)  // x² + 1
        #expect(realRoots(of: [5, 2, 1]).isEmpty)  // (x + 1)² + 4
        #expect(realRoots(of: [1, 0, 0, 0, 0, 0, 0, 0, 1]).isEmpty)  // x⁸ + 1
        // (x² + 1)(x² + 2x + 5)(x² − 4x + 8)(x² + 0.01).
        var c = [1.0]
        for quadratic in [[1.0, 0, 1], [5, 2, 1], [8, -4, 1], [0.01, 0, 1]] {
            var next = [Double](repeating: 0, count: c.count + 2)
            for (i, a) in c.enumerated() { for (j, b) in quadratic.enumerated() { next[i + j] += a * b } }
            c = next
        }
        #expect(c.count == 9)
        #expect(realRoots(of: c).isEmpty)
    }

    @Test("range restriction, trailing and degenerate coefficients")
    func rangesAndDegenerateCoefficients() {
        let cubic = polynomial(roots: [1, 2, 3])
        #expect(realRoots(of: cubic, in: 1.5...2.5).count == 1)
        #expect(abs(realRoots(of: cubic, in: 1.5...2.5)[0] - 2) < 1e-12)
        #expect(realRoots(of: cubic, in: 0...Double.infinity).count == 3)
        #expect(realRoots(of: cubic, in: 3.5...Double.infinity).isEmpty)
        // Roots exactly on the range ends are kept.
        #expect(realRoots(of: cubic, in: 1...3).count == 3)
        // Leading zeros are ignored.
        #expect(realRoots(of: cubic + [0, 0]).count == 3)
        #expect(realRoots(of: [-4, 2]) == [2])
        // Constant, zero, empty and non-finite polynomials have no isolated roots.
        #expect(realRoots(of: []).isEmpty)
        #expect(realRoots(of: [0, 0, 0]).isEmpty)
        #expect(realRoots(of: [3]).isEmpty)
        #expect(realRoots(of: [1, .nan, 1]).isEmpty)
        #expect(realRoots(of: [1, 2, .infinity]).isEmpty)
        // A tiny leading coefficient puts one root far away; the others are unaffected.
        let nearlyQuadratic = realRoots(of: [2, -3, 1, 1e-14])
        #expect(nearlyQuadratic.count == 3)
        #expect(nearlyQuadratic.contains { abs($0 - 1) < 1e-12 })
        #expect(nearlyQuadratic.contains { abs($0 - 2) < 1e-12 })
    }

    @Test("the buffer form agrees with the array form")
    func bufferForm() {
        let c = polynomial(roots: [-3, -1, 0.25, 2, 7])
        let expected = realRoots(of: c, in: -2...10)
        var out = [Double](repeating: .nan, count: 5)
        let count = c.withUnsafeBufferPointer { coefficients in
            out.withUnsafeMutableBufferPointer { realRoots(of: coefficients, in: -2...10, into: $0) }
        }
        #expect(Array(out[0..<count]) == expected)
        #expect(expected.count == 4)
    }
}
