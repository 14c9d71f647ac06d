import VPSFeatures
import VPSGeometry
import VPSImaging

extension Localizer {
    /// Diagnostics: the support `camFromMap` gets by projection in `image` — the inliers of the pose
    /// re-estimated from the correspondences it predicts (`ProjectionVerification`), 0 when it
    /// predicts nothing the image shows. Comparing a wrong answer's support with the true pose's
    /// tells whether the image could have told them apart.
    public static func supportByProjection(
        of camFromMap: CameraPose, image: GrayImage, camera: Camera, map: LocalizationMap,
        options: LocalizerOptions = LocalizerOptions()
    ) throws(FeaturesError) -> Int {
        let query = try QueryFeatures([QueryFrame(image: image, camera: camera)], map: map, mode: options.mode)
        let verification = ProjectionVerification(query, map: map)
        return verification.verify(
            pose: camFromMap, support: 0, weightByScale: options.weightByScale, options: options.pose)?.support ?? 0
    }

    /// Diagnostics: how many of the points `camFromMap` explains by projection lie among the query's
    /// retrieved candidates, and how many of the ratio-test matches and candidate neighbours it
    /// explains (within the RANSAC threshold).
    public static func explanation(
        of camFromMap: CameraPose, image: GrayImage, camera: Camera, map: LocalizationMap,
        options: LocalizerOptions = LocalizerOptions()
    ) throws(FeaturesError) -> (projected: Int, amongCandidates: Int, ratioMatches: Int, neighbors: Int) {
        let query = try QueryFeatures([QueryFrame(image: image, camera: camera)], map: map, mode: options.mode)
        let search = CandidateSearch(
            query, map: map, mode: options.mode, hints: options.hints, keyframes: options.mode.retrievedKeyframes)
        let neighbors = search.neighbors(query.frames[0].descriptors)
        let matches = Correspondences.ratioMatches(
            [neighbors], query: query, map: map, ratio: options.ratio ?? options.mode.ratio)
        let verification = ProjectionVerification(query, map: map)
        let projected = verification.matchers[0].matches(pose: camFromMap, radius: 4)
        let allowed = Set(search.candidates?.indices ?? [])
        let among = search.candidates == nil ? projected.count : projected.filter { allowed.contains($0.train) }.count
        let t = options.pose.maxReprojectionError
        let ratioExplained = matches.pixels.indices.filter {
            PoseEstimation.explains(matches, $0, cameras: [camFromMap], query: query, pixels: t)
        }.count
        var neighborExplained = 0
        for q in 0..<neighbors.queryCount {
            for m in neighbors[q] {
                guard let u = camera.project(camFromMap.transform(map.data.positions[Int(m.train)])) else { continue }
                if (u - query.frames[0].pixel(q)).norm < t { neighborExplained += 1 }
            }
        }
        return (projected.count, among, ratioExplained, neighborExplained)
    }
}
