import VPSFeatures
import VPSGeometry
import VPSImaging

/// Stage 5b of a query: each inlier keypoint moved onto the spot its map point's reference patch shows.
///
/// A map keeps, per point, the patch of its reference view, its finest observation
/// (`ObservationAlignment`, `MapData.pointPatches`; with `MapBuildOptions.alignObservations` every other
/// observation was aligned to it before triangulating). Aligning the query's keypoint to the same patch
/// (`PatchAlignment`) puts the 2D side of the correspondence on the physical spot the reference view
/// shows, instead of where the detector happened to fire in this view (a pixel off across wide
/// baselines). Only the pose's inliers are aligned, and only the final refit (`PoseTightening`) sees
/// them: RANSAC, verification and the competitor search keep the detected keypoints, so the evidence
/// behind the confidence is unchanged. A keypoint that does not align, or whose point has no patch,
/// stays where it was detected; an aligned one gets a smaller σ in the refit (its residuals at the
/// true pose are about a third of a detected keypoint's on the Strecha scenes), so a few hundred
/// aligned keypoints carry the pose and the rest barely pull it.
struct KeypointRefinement {
    /// The correspondences with aligned keypoints moved.
    var correspondences: Correspondences
    /// Keypoints moved.
    var refined = 0

    /// Aligns the keypoints of `c` flagged in `inliers`, at most `limit` of them per frame (the finest
    /// first), and scales an aligned keypoint's σ by `sigmaFactor`.
    ///
    /// - Complexity: O(inliers × `PatchAlignment.maxIterations` × `PointPatch.count`), plus the query
    ///   image's summed-area table.
    init(
        _ c: Correspondences, inliers: [Bool], query: QueryFeatures, map: LocalizationMap, alignment: PatchAlignment,
        limit: Int = .max, sigmaFactor: Double = 1
    ) {
        correspondences = c
        guard let patches = map.data.pointPatches else { return }
        var integrals: [IntegralImage?] = Array(repeating: nil, count: query.frames.count)
        // In image order: the summed-area table's rows stay cached from one keypoint to the next.
        // Per frame, at most `limit`: the finest keypoints first (the most precise, and the cheapest to align).
        var chosen: [Int] = []
        for k in query.frames.indices {
            let frame = (0..<min(c.count, inliers.count)).filter { inliers[$0] && c.frames[$0] == k }
            chosen +=
                frame.count > limit
                ? frame.sorted { (c.sigmas[$0], $0) < (c.sigmas[$1], $1) }.prefix(limit) : frame[...]
        }
        let order = chosen.sorted {
            (c.frames[$0], c.pixels[$0].y) < (c.frames[$1], c.pixels[$1].y)
        }
        for i in order {
            let p = Int(c.pointIndices[i])
            let bytes = patches[(p * PointPatch.count)..<((p + 1) * PointPatch.count)]
            guard let template = PatchAlignment.Template(bytes, minDeviation: alignment.minTemplateDeviation) else {
                continue
            }
            let k = c.frames[i]
            let frame = query.frames[k]
            if integrals[k] == nil { integrals[k] = IntegralImage(frame.image) }
            let start = PatchFrame(keypoint: frame.keypoints[Int(c.features[i])], binary: !frame.descriptors.isFloat)
            guard let aligned = alignment.align(template, in: integrals[k]!, from: start) else { continue }
            correspondences.pixels[i] = Vec2(aligned.center.x, aligned.center.y)
            correspondences.sigmas[i] *= sigmaFactor
            refined += 1
        }
    }
}
