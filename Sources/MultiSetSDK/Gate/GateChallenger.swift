import VPSGeometry

/// A candidate offset built from fixes that disagree with the anchor but agree with each other (SPEC §9.3).
struct GateChallenger: Sendable, Equatable {
    /// The margin test's threshold: the median inlier margin must reach it (§9.5 step 7).
    static let minimumMedianMargin = 1.5

    /// Its fixes in arrival order.
    private(set) var fixes: [GateFix]
    /// Its offset: the consensus of its fixes (geometric median of translations, mean rotation).
    private(set) var offset: Rigid3
    /// Distinct viewpoints of its fixes (`S`).
    private(set) var support: ViewpointSet
    /// Distinct viewpoints of the anchor-agreeing fixes received since it was created (`I`).
    private(set) var incumbent = ViewpointSet()

    /// A challenger of one fix.
    init(first fix: GateFix) {
        fixes = [fix]
        offset = fix.worldFromMap
        support = ViewpointSet(fixes: [fix])
    }

    /// The frame time of its newest fix, seconds.
    var newestFrameTime: Double { fixes.map(\.frameTime).max() ?? -.infinity }

    /// Adds a fix that agrees with it and recomputes the offset.
    mutating func add(_ fix: GateFix) {
        fixes.append(fix)
        support.add(fix)
        offset = OffsetConsensus.offset(of: fixes.map(\.worldFromMap)) ?? fix.worldFromMap
    }

    /// Counts an anchor-agreeing fix towards the incumbent's support.
    mutating func addIncumbent(_ fix: GateFix) {
        incumbent.add(fix)
    }

    /// The median inlier margin of its fixes that report one, or nil when none does.
    var medianInlierMargin: Double? {
        let margins = fixes.compactMap(\.inlierMargin).sorted()
        guard !margins.isEmpty else { return nil }
        let middle = margins.count / 2
        return margins.count % 2 == 1 ? margins[middle] : (margins[middle - 1] + margins[middle]) / 2
    }

    /// The margin test (§9.5 step 7): passes when no fix reports a margin or the median is ≥ 1.5.
    var passesMarginTest: Bool {
        guard let median = medianInlierMargin else { return true }
        return median >= Self.minimumMedianMargin
    }
}
