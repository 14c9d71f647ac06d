import VPSFeatures
import VPSGeometry

/// 2D–3D correspondences of a query: a keypoint of one frame and the map point it is matched to.
///
/// Stage 3 of a query builds them from descriptor matches (`ratioMatches`); verification by
/// projection builds them from the points a pose predicts.
struct Correspondences {
    /// Keypoint pixel, in its frame's image.
    var pixels: [Vec2] = []
    /// Map point position and index.
    var points: [Vec3] = []
    var pointIndices: [Int32] = []
    /// Frame of the keypoint and the keypoint's index in that frame.
    var frames: [Int] = []
    var features: [Int32] = []
    /// Keypoint noise relative to the finest pyramid level (its pyramid scale).
    var sigmas: [Double] = []

    var count: Int { pixels.count }

    /// Appends keypoint `q` of frame `k` matched to map point `p`.
    mutating func append(frame k: Int, feature q: Int, point p: Int32, query: QueryFeatures, map: LocalizationMap) {
        let f = query.frames[k]
        pixels.append(f.pixel(q))
        points.append(map.data.positions[Int(p)])
        pointIndices.append(p)
        frames.append(k)
        features.append(Int32(q))
        sigmas.append(f.scales[q])
    }

    /// The subset at `indices`, in that order.
    func subset(_ indices: [Int]) -> Correspondences {
        var out = Correspondences()
        out.pixels = indices.map { pixels[$0] }
        out.points = indices.map { points[$0] }
        out.pointIndices = indices.map { pointIndices[$0] }
        out.frames = indices.map { frames[$0] }
        out.features = indices.map { features[$0] }
        out.sigmas = indices.map { sigmas[$0] }
        return out
    }

    /// Each feature's nearest candidate point when it passes Lowe's ratio test against the second.
    ///
    /// - Parameter neighbors: per frame, the candidate search's two nearest points of each feature.
    static func ratioMatches(
        _ neighbors: [NearestNeighbors], query: QueryFeatures, map: LocalizationMap, ratio: Float
    ) -> Correspondences {
        var out = Correspondences()
        for (k, frameNeighbors) in neighbors.enumerated() {
            for m in frameNeighbors.matches(ratio: ratio) {
                out.append(frame: k, feature: Int(m.query), point: m.train, query: query, map: map)
            }
        }
        return out
    }
}
