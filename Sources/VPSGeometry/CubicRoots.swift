#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Real roots of the monic cubic `x³ + b x² + c x + d`, each polished by two Newton steps.
///
/// Uses the trigonometric form when there are three real roots and Cardano's form otherwise.
/// Returns 1 or 3 roots (a double root may appear twice).
@inlinable
func realRootsOfMonicCubic(_ b: Double, _ c: Double, _ d: Double) -> (count: Int, roots: (Double, Double, Double)) {
    let b3 = b / 3
    let p = c - b * b3
    let q = 2 * b3 * b3 * b3 - b3 * c + d
    let disc = q * q / 4 + p * p * p / 27
    var r0: Double, r1 = 0.0, r2 = 0.0
    var count: Int
    if disc > 0 {
        let s = disc.squareRoot()
        r0 = cbrt(-q / 2 + s) + cbrt(-q / 2 - s) - b3
        count = 1
    } else {
        let m = 2 * (max(-p, 0) / 3).squareRoot()
        let arg = m > 0 ? max(-1, min(1, 3 * q / (p * m))) : 0
        let theta = acos(arg) / 3
        r0 = m * cos(theta) - b3
        r1 = m * cos(theta - 2 * Double.pi / 3) - b3
        r2 = m * cos(theta - 4 * Double.pi / 3) - b3
        count = 3
    }
    @inline(__always) func polish(_ x: inout Double) {
        for _ in 0..<2 {
            let f = ((x + b) * x + c) * x + d
            let df = (3 * x + 2 * b) * x + c
            if df != 0 { x -= f / df }
        }
    }
    polish(&r0)
    if count == 3 {
        polish(&r1)
        polish(&r2)
    }
    return (count, (r0, r1, r2))
}
