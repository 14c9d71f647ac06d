/// Merges pairwise keypoint matches into multi-view tracks (union–find over (image, keypoint)).
///
/// A track may hold one keypoint per image. A match that would join two keypoints of one image is a
/// wrong match somewhere along the chain; `ConflictPolicy` says what becomes of it. Adding matches
/// costs near-constant amortized time each, plus, under `.refuseMatch`, O(views) for the image lists
/// a union merges.
public struct TrackBuilder {
    /// A keypoint of one image.
    public struct Node: Hashable, Sendable {
        /// Image index.
        public var image: Int
        /// Keypoint index in that image.
        public var keypoint: Int
        /// Builds a node.
        public init(image: Int, keypoint: Int) {
            self.image = image
            self.keypoint = keypoint
        }
    }

    /// What a match that would put two keypoints of one image into a track does.
    public enum ConflictPolicy: String, Sendable, CaseIterable {
        /// The match is refused and the two tracks stay apart (first come, first kept: add the most
        /// trusted matches first). A façade's repeated window then costs one wrong link, not the
        /// whole track it touched.
        case refuseMatch
        /// The match is joined and the whole track is dropped as inconsistent when tracks are read.
        case dropTrack
    }

    /// The policy this builder applies.
    public let conflicts: ConflictPolicy
    /// Matches refused under `.refuseMatch`.
    public private(set) var refusedMatches = 0

    private var index: [Node: Int] = [:]
    private var nodes: [Node] = []
    private var parent: [Int] = []
    private var rank: [UInt8] = []
    /// The sorted images of each set, current at its root (kept under `.refuseMatch` only).
    private var images: [[Int]] = []

    /// An empty builder applying `conflicts`.
    public init(conflicts: ConflictPolicy) {
        self.conflicts = conflicts
    }

    private mutating func id(_ n: Node) -> Int {
        if let i = index[n] { return i }
        let i = nodes.count
        index[n] = i
        nodes.append(n)
        parent.append(i)
        rank.append(0)
        if conflicts == .refuseMatch { images.append([n.image]) }
        return i
    }

    private mutating func find(_ i: Int) -> Int {
        var r = i
        while parent[r] != r { r = parent[r] }
        var k = i
        while parent[k] != r {
            let next = parent[k]
            parent[k] = r
            k = next
        }
        return r
    }

    /// Records that keypoint `a` and keypoint `b` see the same point.
    ///
    /// - Returns: false when the match was refused (`.refuseMatch` and the two tracks share an image).
    @discardableResult
    public mutating func addMatch(_ a: Node, _ b: Node) -> Bool {
        let ra = find(id(a)), rb = find(id(b))
        guard ra != rb else { return true }
        // Only refusal needs each set's images; dropping reads conflicts off the finished tracks.
        var joined: [Int] = []
        if conflicts == .refuseMatch {
            guard let disjoint = Self.mergedIfDisjoint(images[ra], images[rb]) else {
                refusedMatches += 1
                return false
            }
            joined = disjoint
        }
        let root: Int
        if rank[ra] < rank[rb] {
            parent[ra] = rb
            root = rb
        } else {
            parent[rb] = ra
            if rank[ra] == rank[rb] { rank[ra] += 1 }
            root = ra
        }
        if conflicts == .refuseMatch {
            images[root] = joined
            images[ra == root ? rb : ra] = []
        }
        return true
    }

    /// The sorted union of two sorted image lists, or nil when they share an image.
    static func mergedIfDisjoint(_ a: [Int], _ b: [Int]) -> [Int]? {
        var out: [Int] = []
        out.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count, j < b.count {
            if a[i] == b[j] { return nil }
            if a[i] < b[j] {
                out.append(a[i])
                i += 1
            } else {
                out.append(b[j])
                j += 1
            }
        }
        out.append(contentsOf: a[i...])
        out.append(contentsOf: b[j...])
        return out
    }

    /// The consistent tracks with at least `minLength` views, each sorted by image; deterministic order.
    ///
    /// - Returns: the tracks and the number dropped as inconsistent (always 0 under `.refuseMatch`).
    public mutating func tracks(minLength: Int = 2) -> (tracks: [[Node]], inconsistent: Int) {
        var groups: [Int: [Node]] = [:]
        for i in 0..<nodes.count { groups[find(i), default: []].append(nodes[i]) }
        var out: [[Node]] = []
        var inconsistent = 0
        for var g in groups.values {
            g.sort { ($0.image, $0.keypoint) < ($1.image, $1.keypoint) }
            var ok = true
            for k in 1..<max(1, g.count) where g[k].image == g[k - 1].image { ok = false }
            if !ok {
                inconsistent += 1
                continue
            }
            if g.count >= minLength { out.append(g) }
        }
        out.sort { ($0[0].image, $0[0].keypoint) < ($1[0].image, $1[0].keypoint) }
        return (out, inconsistent)
    }
}
