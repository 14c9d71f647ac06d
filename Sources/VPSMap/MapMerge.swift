import VPSFeatures
import VPSGeometry

/// Merges a second map of the same place into a first one (extending a scan), once `MapOverlap` has
/// found where the second sits in the first.
///
/// The addition's points and keyframes are moved into the base's frame. A moved point that lands within
/// `fuseRadius` of a base point with a similar descriptor (at most `maxHammingDistance` bits apart) is
/// the same point seen twice: the addition's keyframes observe the base point instead, so the overlap
/// does not hold two copies whose descriptors would defeat the localizer's ratio test. The rest are
/// appended. Keyframe ids and names are made unique (`+<name>` for the addition's).
public enum MapMerge {
    /// What a merge did.
    public struct Report: Sendable, Equatable {
        /// Points of the addition fused into base points, and appended.
        public var fusedPoints: Int
        public var addedPoints: Int
        /// Keyframes appended.
        public var addedKeyframes: Int
    }

    /// Errors of `merge`.
    public enum MergeError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The maps use different feature configurations or descriptor sizes.
        case incompatibleFeatures(String, String)

        public var description: String {
            switch self {
            case .incompatibleFeatures(let a, let b): return "the maps use different features (\(a) and \(b))"
            }
        }
    }

    /// `base` extended by `addition`, whose frame `baseFromAddition` maps into the base's.
    ///
    /// - Parameters:
    ///   - fuseRadius: metres; a moved addition point this close to a base point may be fused with it.
    ///   - maxHammingDistance: bits; binary descriptors at most this far apart are the same point.
    /// - Returns: the merged map (the base's code, name, georeference and imported mesh; no build
    ///   funnel, since it is no single build's) and what was fused and added.
    /// - Complexity: O(points) with a spatial hash of the base's points.
    public static func merge(
        _ addition: MapData, into base: MapData, baseFromAddition: Rigid3, fuseRadius: Double = 0.03,
        maxHammingDistance: Int = 64
    ) throws(MergeError) -> (MapData, Report) {
        guard addition.featureConfig == base.featureConfig, addition.descriptorBytes == base.descriptorBytes else {
            throw .incompatibleFeatures(base.featureConfig.description, addition.featureConfig.description)
        }
        let bytes = base.descriptorBytes
        let binary = bytes == 32
        // A hash of the base's points on a grid of fuseRadius cells.
        let cell = max(fuseRadius, 1e-6)
        func key(_ p: Vec3) -> SIMD3<Int> {
            SIMD3(Int((p.x / cell).rounded(.down)), Int((p.y / cell).rounded(.down)), Int((p.z / cell).rounded(.down)))
        }
        var grid: [SIMD3<Int>: [Int]] = [:]
        for (i, p) in base.positions.enumerated() { grid[key(p), default: []].append(i) }

        var merged = base
        merged.buildFunnel = nil
        // Patches survive when either map has them; a point without one gets zeros (no patch).
        let patchBytes = PointPatch.count
        let keepPatches = base.pointPatches != nil || addition.pointPatches != nil
        if keepPatches, merged.pointPatches == nil {
            merged.pointPatches = [UInt8](repeating: 0, count: patchBytes * base.pointCount)
        }
        var remap = [Int32](repeating: -1, count: addition.pointCount)
        var fused = 0
        var taken = Set<Int>()
        for i in 0..<addition.pointCount {
            let p = baseFromAddition.transform(addition.positions[i])
            let descriptor = Array(addition.pointDescriptors[(i * bytes)..<((i + 1) * bytes)])
            var best: (index: Int, distance: Int)?
            if binary {
                let k = key(p)
                for dx in -1...1 {
                    for dy in -1...1 {
                        for dz in -1...1 {
                            for j in grid[k &+ SIMD3(dx, dy, dz)] ?? [] where !taken.contains(j) {
                                guard base.positions[j].distance(to: p) <= fuseRadius else { continue }
                                let d = hamming(descriptor, base.pointDescriptors, offset: j * bytes)
                                if d <= maxHammingDistance, best.map({ d < $0.distance }) ?? true { best = (j, d) }
                            }
                        }
                    }
                }
            }
            if let best {
                remap[i] = Int32(best.index)
                taken.insert(best.index)
                fused += 1
            } else {
                remap[i] = Int32(merged.positions.count)
                merged.positions.append(p)
                merged.colors += addition.colors[(3 * i)..<(3 * i + 3)]
                merged.pointDescriptors += descriptor
                if keepPatches {
                    merged.pointPatches! +=
                        addition.pointPatches?[(i * patchBytes)..<((i + 1) * patchBytes)]
                        ?? [UInt8](repeating: 0, count: patchBytes)[...]
                }
            }
        }
        let additionFromBase = baseFromAddition.inverse
        var nextID = (base.keyframes.map(\.id).max() ?? 0) &+ 1
        let names = Set(base.keyframes.map(\.name))
        for k in addition.keyframes {
            var moved = k
            moved.id = nextID
            nextID &+= 1
            moved.camFromMap = k.camFromMap * additionFromBase
            moved.name = names.contains(k.name) ? "+" + k.name : k.name
            moved.pointIndices = k.pointIndices.map { $0 >= 0 ? remap[Int($0)] : -1 }
            merged.keyframes.append(moved)
        }
        let report = Report(
            fusedPoints: fused, addedPoints: addition.pointCount - fused, addedKeyframes: addition.keyframes.count)
        return (merged, report)
    }

    static func hamming(_ a: [UInt8], _ b: [UInt8], offset: Int) -> Int {
        var d = 0
        for i in 0..<a.count { d += (a[i] ^ b[offset + i]).nonzeroBitCount }
        return d
    }
}
