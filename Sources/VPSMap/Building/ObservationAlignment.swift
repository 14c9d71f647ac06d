import Dispatch
import VPSFeatures
import VPSGeometry
import VPSImaging

/// Stage 3c of a map build: every observation of a track moved onto the same physical spot.
///
/// Each track's reference observation is its finest-scale keypoint (ties: the first); its patch
/// (`PointPatch`, in the keypoint's own scale and orientation) becomes the point's appearance, and, when
/// asked to move them (`MapBuildOptions.alignObservations`, opt-in), every other observation is aligned
/// to it by affine Lucas–Kanade (`PatchAlignment`). An observation that
/// does not align (correlation below the limit, moved too far, left the image) keeps its detected
/// position. (Dropping such observations, and the tracks left with one, gave the Strecha scenes'
/// leave-one-out 15 % smaller errors but thinned the maps unevenly: on the simulated twin-room venue
/// the first fix of the SDK's walk then went to the other room at margin 2.6. Weighing them 3× less
/// in the triangulation, or taking the point's descriptor from the aligned views only, cost accuracy.)
/// Tracks whose reference patch cannot be sampled (too close to the border, flat) keep their detected
/// keypoints and get no patch.
///
/// Images are decoded once per pass (references; with `move`, the others), one at a time per worker, so
/// memory stays that of the features.
struct ObservationAlignment {
    /// Each track's reference patch (`PointPatch.count` bytes), nil without one.
    var patches: [[UInt8]?] = []
    /// Observations moved onto their reference, and those that did not align (kept as detected).
    var aligned = 0
    var unaligned = 0

    /// Samples each track's reference patch and, with `move`, aligns the other observations to it,
    /// writing their refined positions into `features.normalized`.
    init(
        tracks input: [[TrackBuilder.Node]], frames: [MappingFrame], features: inout MapFeatures,
        loadImage: @Sendable (Int) throws -> RGBImage, alignment: PatchAlignment, move: Bool = true
    ) throws(MapBuildError) {
        let binary =
            features.sets.first.map { set in
                if case .binary = set.descriptors { return true } else { return false }
            } ?? true
        let sets = features.sets
        // Each observation's patch frame, per track.
        let patchFrames: [[PatchFrame]] = input.map { track in
            track.map { PatchFrame(keypoint: sets[$0.image].keypoints[$0.keypoint], binary: binary) }
        }
        // The reference of each track: its finest observation.
        let references: [Int] = patchFrames.map { track in
            var best = 0
            for i in track.indices where track[i].scale < track[best].scale { best = i }
            return best
        }
        var observationsByImage = [[Observation]](repeating: [], count: frames.count)
        for (t, track) in input.enumerated() {
            for (i, n) in track.enumerated() { observationsByImage[n.image].append(Observation(track: t, node: i)) }
        }
        // In image order within each image: the summed-area table's rows stay cached.
        let byImage = observationsByImage.enumerated().map { image, list in
            list.sorted {
                sets[image].keypoints[input[$0.track][$0.node].keypoint].y
                    < sets[image].keypoints[input[$1.track][$1.node].keypoint].y
            }
        }

        // Pass 1: reference patches.
        patches = Array(repeating: nil, count: input.count)
        let sampled = try Self.perImage(
            frames, loadImage, byImage.map { $0.filter { references[$0.track] == $0.node } }
        ) {
            integral, entry in PointPatch.sample(integral, at: patchFrames[entry.track][entry.node])
        }
        for list in sampled { for (entry, patch) in list { patches[entry.track] = patch } }
        let templates: [PatchAlignment.Template?] = patches.map { p in
            p.flatMap { PatchAlignment.Template($0[...], minDeviation: alignment.minTemplateDeviation) }
        }
        guard move else { return }

        // Pass 2: every other observation aligned to its reference.
        let todo = byImage.map { $0.filter { references[$0.track] != $0.node && templates[$0.track] != nil } }
        let results = try Self.perImage(frames, loadImage, todo) { integral, entry in
            alignment.align(templates[entry.track]!, in: integral, from: patchFrames[entry.track][entry.node])?.center
        }
        for list in results {
            for (entry, pixel) in list {
                guard let pixel else {
                    unaligned += 1
                    continue
                }
                let n = input[entry.track][entry.node]
                let camera = frames[n.image].camera
                let px = Vec2(pixel.x, pixel.y)
                features.normalized[n.image][n.keypoint] =
                    camera.normalized(fromPixel: px)
                    ?? Vec2((px.x - camera.cx) / camera.fx, (px.y - camera.cy) / camera.fy)
                aligned += 1
            }
        }
    }

    /// One observation: its track and its index in the track.
    struct Observation: Sendable {
        var track: Int
        var node: Int
    }

    /// `body` over each image's `entries`, images in parallel, each decoded once (and not at all when
    /// it has none); results per image, in entry order.
    private static func perImage<R: Sendable>(
        _ frames: [MappingFrame], _ loadImage: @Sendable (Int) throws -> RGBImage, _ entries: [[Observation]],
        _ body: @Sendable (IntegralImage, Observation) -> R
    ) throws(MapBuildError) -> [[(Observation, R)]] {
        let results = ResultsBox<[(Observation, R)]>(count: frames.count)
        DispatchQueue.concurrentPerform(iterations: frames.count) { image in
            guard !entries[image].isEmpty else { return results.set(image, .success([])) }
            do {
                let integral = IntegralImage(try loadImage(image).gray)
                results.set(image, .success(entries[image].map { ($0, body(integral, $0)) }))
            } catch {
                results.set(image, .failure(error))
            }
        }
        var out: [[(Observation, R)]] = []
        for image in 0..<frames.count {
            switch results.get(image) {
            case .success(let list): out.append(list)
            case .failure(let e): throw .image("\(frames[image].name): \(e)")
            case nil: out.append([])
            }
        }
        return out
    }
}
