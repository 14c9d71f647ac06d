import Foundation
import VPSFeatures
import VPSGeometry

/// Matching guided by a pose: map points the pose projects near a query keypoint, seen from a
/// direction the map observed them from, are compared with that keypoint's descriptor.
///
/// Descriptor matching alone loses most true correspondences where the query's texture repeats
/// (rings on a wallpaper, tiles) or its view is far from the map's: the true point is rarely the
/// nearest of thousands, and the ratio test drops it. Among the two or three points a pose puts
/// within a few pixels it is usually the best, so a pose from few inliers (RANSAC on the
/// descriptor matches) finds the many correspondences that confirm it, or finds almost none when
/// it is wrong (ORB-SLAM's relocalization does the same: Mur-Artal, Montiel & Tardós, "ORB-SLAM",
/// T-RO 2015, §V-C).
///
/// Stage 5 of a query (`verify`, over every frame of a rig: `ProjectionVerification`).
///
/// Complexity: O(map points) to project, plus O(keypoints × points within the window).
struct ProjectionMatching {
    let keypoints: [Keypoint]
    let descriptors: LocalDescriptors
    let map: LocalizationMap
    let camera: Camera
    /// Each keypoint's pyramid scale (size / the finest size): the window and the noise grow with it.
    let scales: [Double]

    /// Largest descriptor distance of a match (ORB: 80 bits of 256).
    var maxDistance: Float
    /// Best over second-best distinct point within the window.
    var ratio: Float = 0.9
    /// Largest angle between the query's ray and the directions the map saw a point from.
    var maxViewAngleDegrees = Self.defaultMaxViewAngleDegrees
    static let defaultMaxViewAngleDegrees = 60.0

    /// Grid cell side in pixels.
    private static let cell = 16.0

    init(keypoints: [Keypoint], descriptors: LocalDescriptors, map: LocalizationMap, camera: Camera) {
        self.keypoints = keypoints
        self.descriptors = descriptors
        self.map = map
        self.camera = camera
        scales = Self.pyramidScales(keypoints, sift: descriptors.isFloat)
        maxDistance = descriptors.limits.projection
    }

    /// Binary (ORB) query descriptors.
    init(keypoints: [Keypoint], descriptors: BinaryDescriptors, map: LocalizationMap, camera: Camera) {
        self.init(keypoints: keypoints, descriptors: .binary(descriptors), map: map, camera: camera)
    }

    /// Each keypoint's pyramid scale, at least 1: the σ of its position in pixels relative to the
    /// finest level. ORB (binary descriptors): its size over the finest keypoint size (the level's
    /// decimation, `scaleFactor`^level). SIFT (float descriptors): its octave's decimation, 2^octave
    /// (octaves −1 and 0 both 1), because SIFT interpolates a position within its octave's sampling,
    /// however large the blob (its size also grows with the layer inside the octave).
    static func pyramidScales(_ keypoints: [Keypoint], sift: Bool = false) -> [Double] {
        if sift {
            return keypoints.map { Double(1 << Int(max(0, min(20, $0.octave)))) }
        }
        let finest = keypoints.lazy.map(\.size).min() ?? 1
        return keypoints.map { max(1, Double($0.size / max(finest, 1e-3))) }
    }

    /// Map points in front of `pose` that project within `margin` pixels of the image, seen from the
    /// side of their surface the map saw them from (within `maxViewAngleDegrees`) and from a distance
    /// within the descriptors' scale range of the distance the map saw them from.
    /// - Complexity: O(map points / `PointBlock.size`) for the runs of points the camera cannot see
    ///   (behind it, or beyond their descriptors' reach), O(points) for the others.
    func visiblePoints(pose: CameraPose, margin: Double) -> [Int32] {
        let width = Double(camera.width), height = Double(camera.height)
        let center = pose.center
        let minCos = cos(maxViewAngleDegrees * .pi / 180)
        let positions = map.data.positions
        let nearestDepth = 0.05
        var visible: [Int32] = []
        for block in map.pointBlocks where !block.isHidden(from: pose, cameraCenter: center, nearestDepth: nearestDepth)
        {
            for p in block.range {
                let c = pose.transform(positions[p])
                guard c.z > nearestDepth, let u = camera.project(c), u.x >= -margin, u.y >= -margin,
                    u.x < width + margin, u.y < height + margin
                else { continue }
                guard map.canBeSeen(p, from: center, minCos: minCos) else { continue }
                visible.append(Int32(p))
            }
        }
        return visible
    }

    /// One match per keypoint at most and per map point at most (the closer descriptor wins): the
    /// best point within `radius × scale` pixels of the keypoint when `pose` projects it there.
    ///
    /// - Parameter candidates: the points to consider (`visiblePoints`, e.g. for a nearby pose);
    ///   nil: the points visible from `pose`.
    func matches(pose: CameraPose, radius: Double, among candidates: [Int32]? = nil) -> [Match] {
        let width = Double(camera.width), height = Double(camera.height)
        let columns = Int((width / Self.cell).rounded(.up)), rows = Int((height / Self.cell).rounded(.up))
        // Points projecting into the image, bucketed by cell (counting sort).
        var visible: [(point: Int32, pixel: Vec2)] = []
        for p in candidates ?? visiblePoints(pose: pose, margin: 0) {
            guard let u = camera.project(pose.transform(map.data.positions[Int(p)])), u.x >= 0, u.y >= 0,
                u.x < width, u.y < height
            else { continue }
            visible.append((p, u))
        }
        var start = [Int](repeating: 0, count: columns * rows + 1)
        func cellIndex(_ u: Vec2) -> Int {
            min(rows - 1, Int(u.y / Self.cell)) * columns + min(columns - 1, Int(u.x / Self.cell))
        }
        for v in visible { start[cellIndex(v.pixel) + 1] += 1 }
        for i in 0..<(columns * rows) { start[i + 1] += start[i] }
        var fill = start
        var bucketed = [(point: Int32, pixel: Vec2)](repeating: (0, Vec2(0, 0)), count: visible.count)
        for v in visible {
            let c = cellIndex(v.pixel)
            bucketed[fill[c]] = v
            fill[c] += 1
        }
        // Best point per keypoint, then best keypoint per point (by bucketed entry).
        var bestQuery = [Int32](repeating: -1, count: bucketed.count)
        var bestDistance = [Float](repeating: .infinity, count: bucketed.count)
        for q in 0..<keypoints.count {
            let kp = keypoints[q]
            let px = Vec2(Double(kp.x), Double(kp.y))
            let r = radius * scales[q]
            let x0 = max(0, Int((px.x - r) / Self.cell)), x1 = min(columns - 1, Int((px.x + r) / Self.cell))
            let y0 = max(0, Int((px.y - r) / Self.cell)), y1 = min(rows - 1, Int((px.y + r) / Self.cell))
            guard x0 <= x1, y0 <= y1 else { continue }
            var best = (distance: Float.infinity, entry: -1), second = Float.infinity
            for row in y0...y1 {
                for i in start[row * columns + x0]..<start[row * columns + x1 + 1]
                where (bucketed[i].pixel - px).squaredNorm <= r * r {
                    let h = descriptors.distance(q, to: map.descriptors, Int(bucketed[i].point))
                    if h < best.distance {
                        second = best.distance
                        best = (h, i)
                    } else if h < second {
                        second = h
                    }
                }
            }
            guard best.entry >= 0, best.distance <= maxDistance,
                second == .infinity || best.distance < ratio * second,
                best.distance < bestDistance[best.entry]
            else { continue }
            bestDistance[best.entry] = best.distance
            bestQuery[best.entry] = Int32(q)
        }
        var result: [Match] = []
        for i in 0..<bucketed.count where bestQuery[i] >= 0 {
            result.append(
                Match(query: Int(bestQuery[i]), train: Int(bucketed[i].point), distance: Float(bestDistance[i])))
        }
        return result.sorted { $0.query < $1.query }
    }
}
