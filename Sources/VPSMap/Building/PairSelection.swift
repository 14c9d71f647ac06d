import Dispatch
import VPSFeatures
import VPSGeometry

/// Stage 2 of a map build: which frame pairs to match, by view overlap measured in the scene's own
/// units and confirmed by visual similarity.
///
/// 1. Scene depth per frame: each frame's `neighborsPerFrame` nearest cameras (optical axes within
///    `maxPairAngle`) are scored (below) and the epipolar-consistent matches triangulated; the
///    median depth of those points in the frame is its viewing depth D (the median over frames where
///    a frame has none).
/// 2. View overlap rank of every other frame: `d / D + angle / 75°` (centre distance in units of the
///    viewing depth, plus the angle between optical axes), among frames within `maxPairDistance` D
///    and `maxPairAngle`. Two photographs 5 m apart of a façade 15 m away rank like two phone frames
///    80 cm apart in a room seen from 2.5 m.
/// 3. Visual similarity: the `2 × neighborsPerFrame` best-ranked candidates are scored by the mutual
///    ratio-test matches among the two frames' `overlapFeatures` strongest features that agree with
///    the known epipolar geometry; each frame keeps its `neighborsPerFrame` best-ranked candidates
///    with at least `minOverlapMatches`. Unordered photo sets and wide baselines work the same as
///    ordered video: nothing depends on capture order or a metric distance.
///
/// - Complexity: O(frames² + frames × neighborsPerFrame × overlapFeatures²).
struct PairSelection {
    /// Chosen pairs (i < j), sorted.
    var pairs: [(Int, Int)]
    /// Pairs whose overlap was scored.
    var scored: Int
    /// Median viewing depth over frames, metres (the scene's scale).
    var sceneScale: Double

    /// A scored pair: epipolar-consistent matches and the depths of their points in each frame.
    struct Score {
        var matches: Int
        var depthsI: [Double]
        var depthsJ: [Double]
    }

    init(frames: [MappingFrame], features: MapFeatures, options: MapBuildOptions) {
        let centers = frames.map { $0.camFromMap.center }
        let axes = frames.map { $0.camFromMap.rotation.transposed * Vec3(0, 0, 1) }
        let angles = { (i: Int, j: Int) in degrees(axes[i].angle(to: axes[j])) }
        let baselineFloor = 1e-3 * Self.medianNearest(centers)
        let strongest = features.sets.map { Self.strongest($0, count: options.overlapFeatures) }
        var scores: [[Int]: Score] = [:]
        func score(_ wanted: [[Int]]) {
            let todo = Array(Set(wanted).subtracting(scores.keys)).sorted { ($0[0], $0[1]) < ($1[0], $1[1]) }
            let results = ResultsBox<Score>(count: todo.count)
            DispatchQueue.concurrentPerform(iterations: todo.count) { p in
                results.set(
                    p,
                    .success(
                        Self.score(
                            todo[p][0], todo[p][1], frames: frames, features: features, strongest: strongest,
                            options: options)))
            }
            for (p, pair) in todo.enumerated() {
                if case .success(let s) = results.get(p) { scores[pair] = s }
            }
        }
        func key(_ i: Int, _ j: Int) -> [Int] { [min(i, j), max(i, j)] }

        // 1. Viewing depth per frame from its nearest cameras' matches.
        var nearest: [[Int]] = []
        for i in frames.indices {
            let others = frames.indices.filter {
                $0 != i && angles(i, $0) <= options.maxPairAngle && centers[i].distance(to: centers[$0]) > baselineFloor
            }
            nearest.append(
                Array(
                    others.sorted {
                        (centers[i].distance(to: centers[$0]), $0) < (centers[i].distance(to: centers[$1]), $1)
                    }.prefix(options.neighborsPerFrame)))
        }
        score(frames.indices.flatMap { i in nearest[i].map { key(i, $0) } })
        var depthSamples = [[Double]](repeating: [], count: frames.count)
        for (pair, s) in scores {
            depthSamples[pair[0]] += s.depthsI
            depthSamples[pair[1]] += s.depthsJ
        }
        let frameDepths = depthSamples.map { Self.median($0) }
        let scale = Self.median(frameDepths.compactMap { $0 }) ?? 1
        sceneScale = scale
        let depth = frameDepths.map { $0 ?? scale }

        // 2. Rank by overlap geometry in depth units; 3. score the best-ranked, keep those that match.
        var ranked: [[(rank: Double, other: Int)]] = []
        for i in frames.indices {
            var candidates: [(rank: Double, other: Int)] = []
            for j in frames.indices where j != i {
                let d = centers[i].distance(to: centers[j]) / depth[i]
                let angle = angles(i, j)
                guard angle <= options.maxPairAngle, d <= options.maxPairDistance,
                    centers[i].distance(to: centers[j]) > baselineFloor
                else { continue }
                candidates.append((d + angle / 75, j))
            }
            candidates.sort { ($0.rank, $0.other) < ($1.rank, $1.other) }
            ranked.append(Array(candidates.prefix(2 * options.neighborsPerFrame)))
        }
        score(frames.indices.flatMap { i in ranked[i].map { key(i, $0.other) } })
        scored = scores.count
        var chosen = Set<[Int]>()
        for i in frames.indices {
            let overlapping = ranked[i].filter { (scores[key(i, $0.other)]?.matches ?? 0) >= options.minOverlapMatches }
            for c in overlapping.prefix(options.neighborsPerFrame) { chosen.insert(key(i, c.other)) }
        }
        pairs = chosen.map { ($0[0], $0[1]) }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
    }

    /// Scores frames `i` and `j`: epipolar-consistent mutual matches of their strongest features, and
    /// the depths of the two-view points in each frame.
    static func score(
        _ i: Int, _ j: Int, frames: [MappingFrame], features: MapFeatures,
        strongest: [(indices: [Int], descriptors: FeatureDescriptors)], options: MapBuildOptions
    ) -> Score {
        let check = EpipolarCheck(frames[i], frames[j], pixels: options.epipolarThreshold)
        var result = Score(matches: 0, depthsI: [], depthsJ: [])
        for m in match(strongest[i].descriptors, strongest[j].descriptors, ratio: options.ratio) {
            let a = features.normalized[i][strongest[i].indices[Int(m.query)]]
            let b = features.normalized[j][strongest[j].indices[Int(m.train)]]
            guard check.accepts(a, b) else { continue }
            result.matches += 1
            let observations = [
                TriangulationObservation(camFromWorld: frames[i].camFromMap, normalized: a),
                TriangulationObservation(camFromWorld: frames[j].camFromMap, normalized: b),
            ]
            guard let x = triangulatePoint(observations, refineIterations: 0) else { continue }
            let zi = frames[i].camFromMap.transform(x).z, zj = frames[j].camFromMap.transform(x).z
            if zi > 0 && zj > 0 && zi.isFinite && zj.isFinite {
                result.depthsI.append(zi)
                result.depthsJ.append(zj)
            }
        }
        return result
    }

    /// The median of `values`; nil when empty.
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    /// Median over cameras of the distance to the nearest other camera with a distinct centre (1 when
    /// every camera sits at one place).
    static func medianNearest(_ centers: [Vec3]) -> Double {
        var nearest: [Double] = []
        for (i, c) in centers.enumerated() {
            let d = centers.enumerated().filter { $0.offset != i }.map { $0.element.distance(to: c) }.filter {
                $0 > 1e-9
            }
            if let m = d.min() { nearest.append(m) }
        }
        return median(nearest) ?? 1
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
