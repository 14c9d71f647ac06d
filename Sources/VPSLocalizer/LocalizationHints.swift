import VPSGeometry

/// Where the camera is believed to be, in the engine's (right-handed) map frame: a position prior
/// with a radius and a band of heights (SPEC §17.3 hints, converted at the API edge).
///
/// Hints narrow the search (keyframes outside the region are not retrieved) and are checked
/// against the answer: a pose whose camera lies outside the region fails with
/// `LocalizationFailure.outsideHintRegion` rather than being returned.
public struct LocalizationHints: Sendable, Equatable {
    /// Position prior of the camera centre, map frame, metres.
    public var position: Vec3?
    /// Radius around `position`, metres.
    public var radius: Double
    /// Measure the radius horizontally (X–Z plane) only.
    public var horizontalOnly: Bool
    /// Allowed camera heights (map Y), metres.
    public var heightBand: ClosedRange<Double>?

    /// Hints; no arguments means none.
    public init(
        position: Vec3? = nil, radius: Double = 25, horizontalOnly: Bool = false, heightBand: ClosedRange<Double>? = nil
    ) {
        self.position = position
        self.radius = radius
        self.horizontalOnly = horizontalOnly
        self.heightBand = heightBand
    }

    /// True when no hint is given.
    public var isEmpty: Bool { position == nil && heightBand == nil }

    /// Whether a camera centre (map frame) lies in the hinted region, with `slack` metres of
    /// tolerance (keyframes near the border may still see the queried place).
    public func contains(_ center: Vec3, slack: Double = 0) -> Bool {
        if let band = heightBand, center.y < band.lowerBound - slack || center.y > band.upperBound + slack {
            return false
        }
        if let p = position {
            var d = center - p
            if horizontalOnly { d = Vec3(d.x, 0, d.z) }
            if d.norm > radius + slack { return false }
        }
        return true
    }
}
