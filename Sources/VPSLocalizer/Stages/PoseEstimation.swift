import VPSGeometry

/// Stage 4 of a query: a robust pose from correspondences — LO-RANSAC and refinement.
///
/// One frame: P3P, or the two-point upright solver when gravity is known (`estimateAbsolutePose`).
/// Several frames: gP3P over the rig (`estimateGeneralizedAbsolutePose`), every frame's matches
/// voting for one pose. Either way the refinement weights each keypoint by its pyramid scale when
/// asked, and the result is frame 0's `firstFromMap`.
enum PoseEstimation {
    /// Estimates `firstFromMap` from `c`.
    ///
    /// - Parameters:
    ///   - weightByScale: weight residuals by 1 / keypoint scale in the refinement.
    ///   - options: thresholds, RANSAC and refinement.
    /// - Complexity: RANSAC's iterations × (solve + verification) plus the refinement.
    static func estimate(
        _ c: Correspondences, query: QueryFeatures, weightByScale: Bool, options: AbsolutePoseOptions
    ) -> AbsolutePoseResult {
        let sigmas = weightByScale ? c.sigmas : nil
        if query.frames.count == 1 {
            let f = query.frames[0]
            return estimateAbsolutePose(
                pixels: c.pixels, points: c.points, camera: f.camera, gravityInCamera: f.gravityInCamera,
                pixelSigmas: sigmas, options: options)
        }
        return estimateGeneralizedAbsolutePose(
            RigObservations(
                cameras: query.frames.map(\.camera), camFromRig: query.frames.map(\.camFromFirst), pixels: c.pixels,
                cameraIndices: c.frames), points: c.points, pixelSigmas: sigmas, options: options)
    }

    /// True when `pose` reprojects correspondence `i` within `pixels` (in its frame's camera).
    @inline(__always) static func explains(
        _ c: Correspondences, _ i: Int, cameras: [CameraPose], query: QueryFeatures, pixels: Double
    ) -> Bool {
        guard let u = query.frames[c.frames[i]].camera.project(cameras[c.frames[i]].transform(c.points[i])) else {
            return false
        }
        return (u - c.pixels[i]).squaredNorm < pixels * pixels
    }
}
