import VPSGeometry
import VPSMap

/// The noise of a map's keypoint observations, estimated from the map itself: how far, per image
/// axis, its points reproject from the keypoints that observe them.
///
/// A point's position covariance (`LocalizationMap.pointCovariances`) is its triangulation
/// geometry times this variance. Assuming 1 px overstated it: on Herz-Jesus-P8 the estimate is
/// 0.64 px per axis for ORB and 0.35 px for RootSIFT (median reprojection 0.38 and 0.13 px). A map
/// whose points came from elsewhere (depth) shows that source's noise the same way.
public enum ObservationNoise {
    /// The estimate's bounds, pixels: below, keypoints are not that precise; above, the map's
    /// residuals are dominated by something other than noise.
    public static let bounds = 0.1...2.0

    /// A point with an observation this far from its projection (pixels) is left out as gross.
    public static let grossPixels = 4.0

    /// Per-axis standard deviation (pixels) of `data`'s observations of points seen at least twice:
    /// the root of their residuals' sum of squares over its redundancy (2n observations less the
    /// 3m coordinates of the m points they fixed), the variance factor of the triangulations. Points
    /// with a residual over `grossPixels` are left out. 1 px when the map has too few such
    /// observations (fewer than 50) to tell.
    ///
    /// - Complexity: O(observations).
    public static func sigma(of data: MapData) -> Double {
        var sums = [Double](repeating: 0, count: data.pointCount)
        var counts = [Int32](repeating: 0, count: data.pointCount)
        var gross = [Bool](repeating: false, count: data.pointCount)
        for kf in data.keyframes {
            let pose = CameraPose(kf.camFromMap)
            for (j, p) in kf.pointIndices.enumerated() where p >= 0 && Int(p) < data.pointCount {
                let i = Int(p)
                guard j < kf.keypoints.count else { continue }
                guard let u = kf.camera.project(pose.transform(data.positions[i])) else {
                    gross[i] = true
                    continue
                }
                let k = kf.keypoints[j]
                let s = Vec2(u.x - Double(k.x), u.y - Double(k.y)).squaredNorm
                if !(s <= grossPixels * grossPixels) { gross[i] = true }
                sums[i] += s
                counts[i] += 1
            }
        }
        var sum = 0.0, observations = 0, points = 0
        for i in 0..<data.pointCount where counts[i] >= 2 && !gross[i] {
            sum += sums[i]
            observations += Int(counts[i])
            points += 1
        }
        let redundancy = 2 * observations - 3 * points
        guard observations >= 50, redundancy > 0 else { return 1 }
        let sigma = (sum / Double(redundancy)).squareRoot()
        return min(bounds.upperBound, max(bounds.lowerBound, sigma))
    }
}
