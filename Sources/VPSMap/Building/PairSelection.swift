import Dispatch
import VPSFeatures
import VPSGeometry

/// Stage 2 of a map build: which frame pairs to match, chosen by measured overlap.
///
/// 1. Candidates per frame: the `candidatesPerFrame` frames nearest by camera distance relative
///    to the scene's scale (the median distance from a camera to its nearest other camera) plus
///    view angle, among those whose optical axes are within `maxPairAngle`. No metric distance
///    limit: photographs metres apart and video frames centimetres apart rank the same way.
/// 2. Overlap score per candidate pair: mutual ratio-test matches among the two frames'
///    `overlapFeatures` strongest features that agree with the known epipolar geometry. This is
///    visual similarity checked by the poses: an unordered photo set or a wide baseline finds its
///    overlapping pairs whatever the capture order.
/// 3. Each frame keeps its `neighborsPerFrame` best-scoring partners with at least
///    `minOverlapMatches`.
///
/// - Complexity: O(frames × candidatesPerFrame × overlapFeatures²) descriptor distances.
struct PairSelection {
    /// Chosen pairs (i < j), sorted.
    var pairs: [(Int, Int)]
    /// Pairs whose overlap was scored.
    var scored: Int
    /// Median nearest-camera distance, metres (1 when every camera sits at one place).
    var sceneScale: Double

    init(frames: [MappingFrame], features: MapFeatures, options: MapBuildOptions) {
        let centers = frames.map { $0.camFromMap.center }
        let axes = frames.map { $0.camFromMap.rotation.transposed * Vec3(0, 0, 1) }
        sceneScale = Self.sceneScale(centers)
        var candidates = Set<[Int]>()
        for i in frames.indices {
            var ranked: [(Double, Int)] = []
            for j in frames.indices where j != i {
                let d = centers[i].distance(to: centers[j])
                let angle = degrees(axes[i].angle(to: axes[j]))
                // A pair without baseline triangulates nothing.
                guard angle <= options.maxPairAngle, d > 1e-3 * sceneScale else { continue }
                ranked.append((d / sceneScale + angle / 30, j))
            }
            ranked.sort { ($0.0, $0.1) < ($1.0, $1.1) }
            for (_, j) in ranked.prefix(options.candidatesPerFrame) { candidates.insert([min(i, j), max(i, j)]) }
        }
        let scoredPairs = candidates.map { ($0[0], $0[1]) }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
        scored = scoredPairs.count
        let strongest = features.sets.map { Self.strongest($0, count: options.overlapFeatures) }
        let scores = ResultsBox<Int>(count: scoredPairs.count)
        DispatchQueue.concurrentPerform(iterations: scoredPairs.count) { p in
            let (i, j) = scoredPairs[p]
            let check = EpipolarCheck(frames[i], frames[j], pixels: options.epipolarThreshold)
            let matches = Self.match(strongest[i].descriptors, strongest[j].descriptors, ratio: options.ratio)
            let agreeing = matches.filter {
                check.accepts(
                    features.normalized[i][strongest[i].indices[Int($0.query)]],
                    features.normalized[j][strongest[j].indices[Int($0.train)]])
            }
            scores.set(p, .success(agreeing.count))
        }
        var partners = [[(score: Int, other: Int)]](repeating: [], count: frames.count)
        for (p, (i, j)) in scoredPairs.enumerated() {
            guard case .success(let score) = scores.get(p), score >= options.minOverlapMatches else { continue }
            partners[i].append((score, j))
            partners[j].append((score, i))
        }
        var chosen = Set<[Int]>()
        for i in frames.indices {
            let best = partners[i].sorted { $0.score != $1.score ? $0.score > $1.score : $0.other < $1.other }
            for (_, j) in best.prefix(options.neighborsPerFrame) { chosen.insert([min(i, j), max(i, j)]) }
        }
        pairs = chosen.map { ($0[0], $0[1]) }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
    }

    /// Median over cameras of the distance to the nearest other camera with a distinct centre.
    static func sceneScale(_ centers: [Vec3]) -> Double {
        var nearest: [Double] = []
        for (i, c) in centers.enumerated() {
            let d = centers.enumerated().filter { $0.offset != i }.map { $0.element.distance(to: c) }.filter {
                $0 > 1e-9
            }
            if let m = d.min() { nearest.append(m) }
        }
        guard !nearest.isEmpty else { return 1 }
        nearest.sort()
        return nearest[nearest.count / 2]
    }

    /// The `count` strongest features of a set (by detector response) and their indices.
    static func strongest(_ set: FeatureSet, count: Int) -> (indices: [Int], descriptors: FeatureDescriptors) {
        var order = Array(0..<set.count)
        if set.count > count {
            order.sort {
                set.keypoints[$0].response != set.keypoints[$1].response
                    ? set.keypoints[$0].response > set.keypoints[$1].response : $0 < $1
            }
            order = Array(order.prefix(count)).sorted()
        }
        switch set.descriptors {
        case .binary(let b):
            var words: [UInt64] = []
            words.reserveCapacity(4 * order.count)
            for k in order { words += b.words[(4 * k)..<(4 * k + 4)] }
            return (order, .binary(BinaryDescriptors(words: words)))
        case .float(let f):
            var values: [Float] = []
            values.reserveCapacity(f.dimension * order.count)
            for k in order { values += f.values[(f.dimension * k)..<(f.dimension * (k + 1))] }
            return (order, .float(FloatDescriptors(values: values, dimension: f.dimension)))
        }
    }

    /// Mutual ratio-test matches between two descriptor sets of one kind.
    static func match(_ a: FeatureDescriptors, _ b: FeatureDescriptors, ratio: Float) -> [Match] {
        let criteria = MatchCriteria(ratio: ratio, mutual: true)
        switch (a, b) {
        case (.binary(let x), .binary(let y)): return BruteForceMatcher.match(x, y, criteria: criteria)
        case (.float(let x), .float(let y)): return BruteForceMatcher.match(x, y, criteria: criteria)
        default: return []
        }
    }
}
