import VPSGeometry

/// An axis-aligned box in some frame (metres).
public struct BoundingBox: Equatable, Sendable {
    /// Smallest and largest corner.
    public var min: Vec3, max: Vec3

    /// A box from its corners (`min ≤ max` component-wise).
    public init(min: Vec3, max: Vec3) {
        self.min = min
        self.max = max
    }

    /// The smallest box holding all `points` (empty input gives a degenerate box at the origin).
    public init(enclosing points: [Vec3]) {
        guard let first = points.first else {
            self.init(min: .zero, max: .zero)
            return
        }
        var lo = first, hi = first
        for p in points.dropFirst() {
            lo = pointwiseMin(lo, p)
            hi = pointwiseMax(hi, p)
        }
        self.init(min: lo, max: hi)
    }

    /// Edge lengths.
    public var size: Vec3 { max - min }

    /// Centre point.
    public var center: Vec3 { (min + max) / 2 }

    /// True when `p` lies inside or on the box, allowing `tolerance` metres.
    public func contains(_ p: Vec3, tolerance: Double = 0) -> Bool {
        p.x >= min.x - tolerance && p.y >= min.y - tolerance && p.z >= min.z - tolerance
            && p.x <= max.x + tolerance && p.y <= max.y + tolerance && p.z <= max.z + tolerance
    }

    /// The smallest box holding both.
    public func union(_ o: BoundingBox) -> BoundingBox {
        BoundingBox(min: pointwiseMin(min, o.min), max: pointwiseMax(max, o.max))
    }
}
