import Testing
import VPSTestSupport

@testable import VPSGeometry

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct GeometricMedianTests {
    /// The objective the median minimises.
    func sumOfDistances(_ points: [Vec3], to y: Vec3) -> Double {
        points.reduce(0) { $0 + $1.distance(to: y) }
    }

    @Test func emptyAndNonFiniteInputs() {
        #expect(geometricMedian(of: []) == nil)
        #expect(geometricMedian(of: [Vec3(1, 2, 3), Vec3(.nan, 0, 0)]) == nil)
        #expect(geometricMedian(of: [Vec3(1, 2, 3), Vec3(0, .infinity, 0)]) == nil)
    }

    @Test func singlePointIsItsOwnMedian() {
        let p = Vec3(12.5, -3, 1e6)
        #expect(geometricMedian(of: [p]) == p)
        #expect(geometricMedian(of: [p, p, p]) == p)
        #expect(geometricMedian(of: [p], maxIterations: 0) == p)
    }

    @Test func symmetricSetsGiveTheirCentre() {
        let centre = Vec3(100, -20, 3)
        var cube: [Vec3] = []
        for x in [-1.0, 1] {
            for y in [-2.0, 2] {
                for z in [-0.5, 0.5] { cube.append(centre + Vec3(x, y, z)) }
            }
        }
        let octahedron = [Vec3(3, 0, 0), Vec3(-3, 0, 0), Vec3(0, 3, 0), Vec3(0, -3, 0), Vec3(0, 0, 3), Vec3(0, 0, -3)]
            .map { centre + $0 }
        for set in [cube, octahedron] {
            let median = geometricMedian(of: set)
            #expect(median.map { $0.distance(to: centre) < 1e-9 } == true)
            // From an off-centre start the iteration still finds the centre.
            let fromAside = weiszfeldMedian(
                of: set, start: centre + Vec3(0.4, -0.3, 0.2), maxIterations: 500, tolerance: 1e-12)
            #expect(fromAside.distance(to: centre) < 1e-9)
        }
    }

    @Test func oneFarOutlierBarelyMovesIt() throws {
        // Four corners of a square and one outlier on the x axis. By symmetry the median is (t, 0, 0) where the
        // unit vectors balance: 2 [(1 − t)/√((1 − t)² + 1) − (1 + t)/√((1 + t)² + 1)] + 1 = 0, whatever the
        // outlier's distance.
        func balance(_ t: Double) -> Double {
            let u = 1 - t
            let v = 1 + t
            return 2 * (u / (u * u + 1).squareRoot() - v / (v * v + 1).squareRoot()) + 1
        }
        var low = 0.0
        var high = 1.0
        for _ in 0..<200 {
            let mid = (low + high) / 2
            if balance(mid) > 0 { low = mid } else { high = mid }
        }
        let expected = Vec3(low, 0, 0)
        #expect(low > 0.5 && low < 0.7)
        let square = [Vec3(1, 1, 0), Vec3(1, -1, 0), Vec3(-1, 1, 0), Vec3(-1, -1, 0)]
        for distance in [1e3, 1e6] {
            let points = square + [Vec3(distance, 0, 0)]
            let median = try #require(geometricMedian(of: points, maxIterations: 1000, tolerance: 1e-12))
            #expect(median.distance(to: expected) < 1e-9)
            let rough = try #require(geometricMedian(of: points))
            #expect(rough.distance(to: expected) < 1e-2)
            // The mean, by contrast, follows the outlier.
            #expect(points.reduce(Vec3.zero, +).x / 5 >= distance / 5 - 1e-9)
        }
    }

    @Test func collinearOddSetGivesTheMiddlePoint() throws {
        let origin = Vec3(5, 6, 7)
        let direction = Vec3(1, -2, 2).normalized
        let points = [-5.0, 10, 0, -1, 2].map { origin + $0 * direction }
        let middle = origin
        let precise = try #require(geometricMedian(of: points, maxIterations: 1000, tolerance: 1e-12))
        #expect(precise.distance(to: middle) < 1e-9)
        let rough = try #require(geometricMedian(of: points))
        #expect(rough.distance(to: middle) < 1e-2)
    }

    @Test func iterateAtADataPoint() {
        let line = [-5.0, 10, 0, -1, 2].map { Vec3($0, 0, 0) }
        // Starting on the median itself (a data point): the Vardi–Zhang test stops there, no division by zero.
        let stay = weiszfeldMedian(of: line, start: .zero, maxIterations: 50, tolerance: 1e-12)
        #expect(stay == .zero)
        // Starting on a data point that is not the median: plain Weiszfeld would stick or produce NaN.
        let leave = weiszfeldMedian(of: line, start: Vec3(10, 0, 0), maxIterations: 1000, tolerance: 1e-12)
        #expect(leave.isFinite)
        #expect(leave.norm < 1e-9)
        // The centroid of {−3, 0, 1, 1, 1} is the data point 0, but the median is the triple point 1.
        let triple = [-3.0, 0, 1, 1, 1].map { Vec3(0, $0, 0) }
        let median = geometricMedian(of: triple, maxIterations: 1000, tolerance: 1e-12)
        #expect(median.map { $0.distance(to: Vec3(0, 1, 0)) < 1e-9 } == true)
    }

    @Test func obtuseTriangleHasItsMedianAtTheWideVertex() throws {
        // A vertex with an angle of 120° or more is the Fermat point of the triangle.
        let angle = 150.0 * .pi / 180
        let points = [Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(3 * cos(angle), 3 * sin(angle), 0)]
        let median = try #require(geometricMedian(of: points, maxIterations: 1000, tolerance: 1e-12))
        #expect(median.norm < 1e-9)
    }

    @Test func randomSetsSatisfyOptimality() throws {
        var rng = SplitMix64(testName: "GeometricMedianTests.randomSetsSatisfyOptimality")
        for _ in 0..<50 {
            let points = (0..<(3 + rng.nextInt(below: 30))).map { _ in rng.vector(scale: 20) }
            let median = try #require(geometricMedian(of: points, maxIterations: 2000, tolerance: 1e-10))
            let best = sumOfDistances(points, to: median)
            for _ in 0..<20 {
                let nearby = median + 1e-3 * rng.unitVector()
                #expect(sumOfDistances(points, to: nearby) >= best - 1e-9)
            }
            // Default settings land within the tolerance's order of magnitude.
            let rough = try #require(geometricMedian(of: points))
            #expect(rough.distance(to: median) < 1e-2)
        }
    }
}
