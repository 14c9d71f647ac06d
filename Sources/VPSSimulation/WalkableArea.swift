import VPSGeometry

/// Where a simulated person may stand: floor rectangles minus obstacles, joined by portals.
///
/// Points are ground-plane coordinates `Vec2(x, z)` of the venue's world frame (metres; the floor
/// is at y = 0). Regions are already shrunk by a safety margin from walls, and obstacles grown by
/// one around furniture, so any allowed point keeps a camera clear of the geometry.
public struct WalkableArea: Equatable, Sendable {
    /// An axis-aligned rectangle of the ground plane.
    public struct Rect: Equatable, Sendable {
        /// Smallest and largest corner, `Vec2(x, z)`.
        public var min: Vec2, max: Vec2

        /// A rectangle from its corners.
        public init(min: Vec2, max: Vec2) {
            self.min = min
            self.max = max
        }

        /// True when `p` lies inside or on the rectangle.
        public func contains(_ p: Vec2) -> Bool { p.x >= min.x && p.x <= max.x && p.y >= min.y && p.y <= max.y }

        /// Area in square metres.
        public var area: Double { Swift.max(0, max.x - min.x) * Swift.max(0, max.y - min.y) }

        /// Centre point.
        public var center: Vec2 { (min + max) / 2 }

        /// The rectangle grown by `margin` on every side (shrunk when negative).
        public func inset(by margin: Double) -> Rect {
            Rect(min: min - Vec2(margin, margin), max: max + Vec2(margin, margin))
        }
    }

    /// A passage between two regions (a doorway): a walker goes from `approachA` (in region
    /// `regionA`) straight through `passage` to `approachB` (in region `regionB`).
    public struct Portal: Equatable, Sendable {
        /// The two regions joined.
        public var regionA: Int, regionB: Int
        /// Points on either side from which the passage is crossed in a straight line.
        public var approachA: Vec2, approachB: Vec2
        /// The walkable strip through the doorway.
        public var passage: Rect

        /// Builds a portal.
        public init(regionA: Int, regionB: Int, approachA: Vec2, approachB: Vec2, passage: Rect) {
            self.regionA = regionA
            self.regionB = regionB
            self.approachA = approachA
            self.approachB = approachB
            self.passage = passage
        }
    }

    /// Walkable floor rectangles (rooms, corridors), margins applied.
    public var regions: [Rect]
    /// Forbidden rectangles (furniture footprints grown by the margin).
    public var obstacles: [Rect]
    /// Passages between regions.
    public var portals: [Portal]

    /// Builds an area.
    public init(regions: [Rect], obstacles: [Rect] = [], portals: [Portal] = []) {
        self.regions = regions
        self.obstacles = obstacles
        self.portals = portals
    }

    /// True when `p` is in a region or a portal's passage and in no obstacle.
    public func contains(_ p: Vec2) -> Bool {
        guard regions.contains(where: { $0.contains(p) }) || portals.contains(where: { $0.passage.contains(p) })
        else { return false }
        return !obstacles.contains { $0.contains(p) }
    }

    /// The index of the region holding `p` (ignoring obstacles), else of the nearest region centre.
    public func region(containing p: Vec2) -> Int {
        if let i = regions.firstIndex(where: { $0.contains(p) }) { return i }
        var best = 0, bestDistance = Double.infinity
        for (i, r) in regions.enumerated() {
            let d = (r.center - p).norm
            if d < bestDistance {
                best = i
                bestDistance = d
            }
        }
        return best
    }

    /// True when every point of the segment (sampled every `step` metres) is walkable.
    public func isClear(from a: Vec2, to b: Vec2, step: Double = 0.05) -> Bool {
        let n = max(1, Int(((b - a).norm / step).rounded(.up)))
        for i in 0...n where !contains(a + (b - a) * (Double(i) / Double(n))) {
            return false
        }
        return true
    }

    /// A uniformly random walkable point of region `region` (of any region, weighted by area, when
    /// nil); falls back to the region's centre after many rejected draws.
    public func randomPoint(inRegion region: Int? = nil, using rng: inout SplitMix64) -> Vec2 {
        let index: Int
        if let region {
            index = region
        } else {
            let total = regions.reduce(0) { $0 + $1.area }
            var pick = rng.nextUnit() * total
            var chosen = regions.count - 1
            for (i, r) in regions.enumerated() {
                pick -= r.area
                if pick < 0 {
                    chosen = i
                    break
                }
            }
            index = chosen
        }
        let r = regions[index]
        for _ in 0..<200 {
            let p = Vec2(
                r.min.x + (r.max.x - r.min.x) * rng.nextUnit(), r.min.y + (r.max.y - r.min.y) * rng.nextUnit())
            if contains(p) { return p }
        }
        return r.center
    }

    /// Total walkable area of the regions in square metres (obstacles not subtracted).
    public var area: Double { regions.reduce(0) { $0 + $1.area } }
}
