/// Deterministic 2D value noise: random lattice values, smoothly interpolated.
///
/// Stateless and hash based, so any point can be evaluated in any order with the same result.
struct ValueNoise: Sendable {
    let seed: UInt64

    /// A lattice value in [0, 1) for integer coordinates.
    @inline(__always) func lattice(_ ix: Int, _ iy: Int) -> Double {
        var z = seed &+ UInt64(bitPattern: Int64(ix)) &* 0x9E37_79B9_7F4A_7C15
        z = z &+ UInt64(bitPattern: Int64(iy)) &* 0xC2B2_AE3D_27D4_EB4F
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) * 0x1.0p-53
    }

    /// Smooth noise in [0, 1] at (x, y) (lattice spacing 1).
    func value(_ x: Double, _ y: Double) -> Double {
        let fx = x.rounded(.down), fy = y.rounded(.down)
        let ix = Int(fx), iy = Int(fy)
        var tx = x - fx, ty = y - fy
        tx = tx * tx * (3 - 2 * tx)
        ty = ty * ty * (3 - 2 * ty)
        let a = lattice(ix, iy), b = lattice(ix + 1, iy)
        let c = lattice(ix, iy + 1), d = lattice(ix + 1, iy + 1)
        return (a + (b - a) * tx) * (1 - ty) + (c + (d - c) * tx) * ty
    }

    /// Fractal sum of `octaves` noise layers (each twice the frequency, half the amplitude), in [0, 1].
    func fractal(_ x: Double, _ y: Double, octaves: Int) -> Double {
        var sum = 0.0, amplitude = 1.0, total = 0.0, f = 1.0
        for o in 0..<octaves {
            sum += amplitude * value(x * f + Double(o) * 17.31, y * f - Double(o) * 9.17)
            total += amplitude
            amplitude *= 0.5
            f *= 2
        }
        return sum / total
    }
}
