import VPSGeometry

/// A greedy set of mutually distinct viewpoints, filled in arrival order (SPEC §9.2); its size is the
/// support of the fixes added to it.
struct ViewpointSet: Sendable, Equatable {
    /// The most viewpoints one response may contribute (a multi-frame response counts for at most 2).
    static let perResponseLimit = 2

    /// The kept viewpoints, in the order they were added.
    private(set) var members: [GateViewpoint] = []

    /// The support: the number of mutually distinct viewpoints.
    var count: Int { members.count }

    /// The empty set.
    init() {}

    /// A set holding the support of `fixes`, added in order.
    init(fixes: [GateFix]) {
        for fix in fixes { add(fix) }
    }

    /// Adds the viewpoints of one response, in its frame order, each only if it is distinct from every kept
    /// viewpoint, and at most two of them.
    ///
    /// - Returns: how many viewpoints the response added (0, 1 or 2).
    @discardableResult
    mutating func add(_ fix: GateFix) -> Int {
        var added = 0
        for pose in fix.viewpoints where added < Self.perResponseLimit {
            let candidate = GateViewpoint(worldFromCamera: pose)
            if members.allSatisfy({ $0.isDistinct(from: candidate) }) {
                members.append(candidate)
                added += 1
            }
        }
        return added
    }
}
