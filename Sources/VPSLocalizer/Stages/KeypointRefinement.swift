import Foundation
import VPSFeatures
import VPSGeometry
import VPSImaging
import VPSMap

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
        // Per frame, at most `limit`: the finest keypoints first (the most precise, and the cheapest to
        // align); in image order, so the summed-area table's rows stay cached from one keypoint to the next.
        let perFrame = query.frames.indices.map { k -> [Int] in
            let frame = (0..<min(c.count, inliers.count)).filter { inliers[$0] && c.frames[$0] == k }
            let chosen =
                frame.count > limit
                ? Array(frame.sorted { (c.sigmas[$0], $0) < (c.sigmas[$1], $1) }.prefix(limit)) : frame
            return chosen.sorted { (c.pixels[$0].y, $0) < (c.pixels[$1].y, $1) }
        }
        // Every alignment is independent of the others: the frames' summed-area tables are built, then
        // runs of `Self.chunk` keypoints aligned, on the cores there are; the moves are applied in order.
        let integrals = ResultsBox<IntegralImage?>.concurrentMap(perFrame.count) { k in
            perFrame[k].isEmpty ? nil : IntegralImage(query.frames[k].image)
        }
        let tasks = perFrame.indices.flatMap { k in
            stride(from: 0, to: perFrame[k].count, by: Self.chunk).map {
                (frame: k, indices: perFrame[k][$0..<min($0 + Self.chunk, perFrame[k].count)])
            }
        }
        let moves = ResultsBox<[(index: Int, center: Vec2)]>.concurrentMap(tasks.count) { t in
            let k = tasks[t].frame
            guard let integral = integrals[k] else { return [] }
            return Self.align(
                tasks[t].indices, frame: query.frames[k], integral: integral, c: c, patches: patches,
                alignment: alignment)
        }
        for (i, center) in moves.joined() {
            correspondences.pixels[i] = center
            correspondences.sigmas[i] *= sigmaFactor
            refined += 1
        }
    }

    /// Keypoints per parallel task: ~0.5 ms of alignment, far above a task's overhead (microseconds).
    static let chunk = 48

    /// The aligned centres of the correspondences `indices` of one frame (those that align).
    private static func align(
        _ indices: ArraySlice<Int>, frame: QueryFeatures.Frame, integral: IntegralImage, c: Correspondences,
        patches: [UInt8], alignment: PatchAlignment
    ) -> [(index: Int, center: Vec2)] {
        var moved: [(index: Int, center: Vec2)] = []
        for i in indices {
            let p = Int(c.pointIndices[i])
            let bytes = patches[(p * PointPatch.count)..<((p + 1) * PointPatch.count)]
            guard let template = PatchAlignment.Template(bytes, minDeviation: alignment.minTemplateDeviation) else {
                continue
            }
            let start = PatchFrame(keypoint: frame.keypoints[Int(c.features[i])], binary: !frame.descriptors.isFloat)
            guard let aligned = alignment.align(template, in: integral, from: start) else { continue }
            moved.append((i, Vec2(aligned.center.x, aligned.center.y)))
        }
        return moved
    }
}
