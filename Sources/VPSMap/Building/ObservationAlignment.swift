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
/// Images are decoded twice (references, then the others), one at a time per worker, so memory stays
/// that of the features.
struct ObservationAlignment {
    /// The tracks, as given.
    var tracks: [[TrackBuilder.Node]] = []
    /// Each track's reference patch (`PointPatch.count` bytes), nil without one.
    var patches: [[UInt8]?] = []
    /// Observations moved onto their reference, and those that did not align (kept as detected).
    var aligned = 0
    var unaligned = 0
    /// Tracks left as detected for want of a reference patch.
    var withoutPatch = 0

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
        var observationsByImage = [[(track: Int, node: Int)]](repeating: [], count: frames.count)
        for (t, track) in input.enumerated() {
            for (i, n) in track.enumerated() { observationsByImage[n.image].append((t, i)) }
        }
        // In image order within each image: the summed-area table's rows stay cached.
        let byImage = observationsByImage.enumerated().map { image, list in
            list.sorted {
                sets[image].keypoints[input[$0.track][$0.node].keypoint].y
                    < sets[image].keypoints[input[$1.track][$1.node].keypoint].y
            }
        }

        // Pass 1: reference patches.
        let referencePatches = ResultsBox<[(Int, [UInt8]?)]>(count: frames.count)
        DispatchQueue.concurrentPerform(iterations: frames.count) { image in
            let wanted = byImage[image].filter { references[$0.track] == $0.node }
            guard !wanted.isEmpty else { return referencePatches.set(image, .success([])) }
            do {
                let integral = IntegralImage(try loadImage(image).gray)
                referencePatches.set(
                    image,
                    .success(
                        wanted.map { entry in
                            (entry.track, PointPatch.sample(integral, at: patchFrames[entry.track][entry.node]))
                        }))
            } catch {
                referencePatches.set(image, .failure(error))
            }
        }
        var patchOf = [[UInt8]?](repeating: nil, count: input.count)
        for image in 0..<frames.count {
            switch referencePatches.get(image) {
            case .success(let list): for (t, p) in list { patchOf[t] = p }
            case .failure(let e): throw .image("\(frames[image].name): \(e)")
            case nil: break
            }
        }
        let templates: [PatchAlignment.Template?] = patchOf.map { p in
            p.flatMap { PatchAlignment.Template($0[...], minDeviation: alignment.minTemplateDeviation) }
        }

        // Pass 2: every other observation aligned to its reference.
        let results = ResultsBox<[(track: Int, node: Int, pixel: SIMD2<Double>?)]>(count: frames.count)
        DispatchQueue.concurrentPerform(iterations: frames.count) { image in
            let todo =
                move ? byImage[image].filter { references[$0.track] != $0.node && templates[$0.track] != nil } : []
            guard !todo.isEmpty else { return results.set(image, .success([])) }
            do {
                let integral = IntegralImage(try loadImage(image).gray)
                results.set(
                    image,
                    .success(
                        todo.map { entry in
                            let aligned = alignment.align(
                                templates[entry.track]!, in: integral, from: patchFrames[entry.track][entry.node])
                            return (entry.track, entry.node, aligned?.center)
                        }))
            } catch {
                results.set(image, .failure(error))
            }
        }
        var refined = [[SIMD2<Double>?]](repeating: [], count: input.count)
        var failed = [[Bool]](repeating: [], count: input.count)
        for t in input.indices {
            refined[t] = Array(repeating: nil, count: input[t].count)
            failed[t] = Array(repeating: false, count: input[t].count)
        }
        for image in 0..<frames.count {
            switch results.get(image) {
            case .success(let list):
                for r in list {
                    if let p = r.pixel { refined[r.track][r.node] = p } else { failed[r.track][r.node] = true }
                }
            case .failure(let e): throw .image("\(frames[image].name): \(e)")
            case nil: break
            }
        }

        for (t, track) in input.enumerated() {
            guard templates[t] != nil else {
                withoutPatch += 1
                tracks.append(track)
                patches.append(nil)
                continue
            }
            tracks.append(track)
            patches.append(patchOf[t])
            for (i, n) in track.enumerated() where i != references[t] {
                guard let p = refined[t][i] else {
                    if failed[t][i] { unaligned += 1 }
                    continue
                }
                let camera = frames[n.image].camera
                let px = Vec2(p.x, p.y)
                features.normalized[n.image][n.keypoint] =
                    camera.normalized(fromPixel: px)
                    ?? Vec2((px.x - camera.cx) / camera.fx, (px.y - camera.cy) / camera.fy)
                aligned += 1
            }
        }
    }
}
