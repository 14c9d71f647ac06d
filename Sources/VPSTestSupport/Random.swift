import VPSGeometry

/// Random geometric objects for seeded tests.
extension SplitMix64 {
    /// A generator seeded from a test's name, so every test has its own reproducible stream.
    public init(testName: String) { self.init(seed: SplitMix64.seed(from: testName)) }

    /// A uniform `Double` in `range`.
    public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * nextUnit()
    }

    /// A unit vector uniform on the sphere.
    public mutating func unitVector() -> Vec3 {
        while true {
            let v = Vec3(gaussian(), gaussian(), gaussian())
            let n = v.norm
            if n > 1e-6 { return v / n }
        }
    }

    /// A standard normal sample.
    public mutating func gaussian() -> Double { nextGaussian() }

    /// A rotation uniform on SO(3) (normalized Gaussian quaternion).
    public mutating func rotation() -> Quaternion {
        Quaternion(x: gaussian(), y: gaussian(), z: gaussian(), w: gaussian()).normalized
    }

    /// A vector with components uniform in `-scale...scale`.
    public mutating func vector(scale: Double) -> Vec3 {
        Vec3(uniform(-scale...scale), uniform(-scale...scale), uniform(-scale...scale))
    }
}
