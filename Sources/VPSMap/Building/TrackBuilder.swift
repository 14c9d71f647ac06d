/// Merges pairwise keypoint matches into multi-view tracks (union–find over (image, keypoint)).
///
/// A track that would hold two different keypoints of the same image is inconsistent (a wrong
/// match somewhere along it); such tracks are dropped whole rather than guessed at.
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

    private var index: [Node: Int] = [:]
    private var nodes: [Node] = []
    private var parent: [Int] = []
    private var rank: [UInt8] = []

    /// An empty builder.
    public init() {}

    private mutating func id(_ n: Node) -> Int {
        if let i = index[n] { return i }
        let i = nodes.count
        index[n] = i
        nodes.append(n)
        parent.append(i)
        rank.append(0)
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
    public mutating func addMatch(_ a: Node, _ b: Node) {
        let ra = find(id(a)), rb = find(id(b))
        guard ra != rb else { return }
        if rank[ra] < rank[rb] {
            parent[ra] = rb
        } else if rank[ra] > rank[rb] {
            parent[rb] = ra
        } else {
            parent[rb] = ra
            rank[ra] += 1
        }
    }

    /// The consistent tracks with at least `minLength` views, each sorted by image; deterministic order.
    ///
    /// - Returns: the tracks and the number dropped as inconsistent.
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
