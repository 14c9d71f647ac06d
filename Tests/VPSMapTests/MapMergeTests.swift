import Testing
import VPSFeatures
import VPSGeometry
import VPSMap

/// Merging a second map of the same place into a first (extending a scan).
@Suite struct MapMergeTests {
    static let config = FeatureConfigID(name: "orb-2000", version: 1)

    /// A map of `n` points on a 1 m grid, each with its own descriptor, seen by one keyframe.
    static func map(_ positions: [Vec3], descriptorSeed: UInt8 = 0, code: String = "MAP_BASE") -> MapData {
        let n = positions.count
        var descriptors: [UInt8] = []
        for i in 0..<n { descriptors += (0..<32).map { UInt8(truncatingIfNeeded: i * 37 + $0 * 11) &+ descriptorSeed } }
        let camera = Camera(fx: 100, fy: 100, cx: 50, cy: 50, width: 100, height: 100)
        let keyframe = Keyframe(
            id: 0, name: "k0", camera: camera, camFromMap: .identity,
            keypoints: [SIMD2<Float>](repeating: SIMD2(1, 1), count: n), descriptors: descriptors,
            pointIndices: (0..<n).map { Int32($0) })
        return MapData(
            code: code, name: code, featureConfig: config, descriptorBytes: 32, positions: positions,
            colors: [UInt8](repeating: 9, count: 3 * n), pointDescriptors: descriptors, keyframes: [keyframe])
    }

    @Test func theSamePlaceSeenTwiceFusesAndNewPointsAreAdded() throws {
        let shared = (0..<6).map { Vec3(Double($0), 0.5 * Double($0 % 2), 2) }
        let base = Self.map(shared)
        // The addition: the shared points plus two new ones, in a frame turned 30° and moved.
        let baseFromAddition = Rigid3(
            rotation: Quaternion(axis: Vec3(0, 1, 0), angle: .pi / 6), translation: Vec3(0.4, 0, -1.2))
        let additionFromBase = baseFromAddition.inverse
        let fresh = [Vec3(10, 0, 2), Vec3(11, 1, 2)]
        var addition = Self.map((shared + fresh).map { additionFromBase * $0 }, code: "MAP_MORE")
        // The new points get descriptors unlike any base point's.
        for i in 6..<8 { for b in 0..<32 { addition.pointDescriptors[i * 32 + b] = ~addition.pointDescriptors[b] } }
        let (merged, report) = try MapMerge.merge(addition, into: base, baseFromAddition: baseFromAddition)
        #expect(report.fusedPoints == 6 && report.addedPoints == 2 && report.addedKeyframes == 1)
        #expect(merged.code == "MAP_BASE" && merged.positions.count == 8)
        for (p, q) in zip(merged.positions[6...], fresh) { #expect(p.distance(to: q) < 1e-9) }
        // The addition's keyframe observes the base's copies of the shared points, and sits in the base frame.
        let k = try #require(merged.keyframes.last)
        #expect(k.pointIndices == (0..<8).map { Int32($0) })
        #expect(k.id == 1 && k.name == "+k0")
        let centre = k.camFromMap.inverse.translation
        #expect(centre.distance(to: baseFromAddition.translation) < 1e-9)
    }

    @Test func mapsOfDifferentFeaturesAreRefused() {
        let base = Self.map([Vec3(0, 0, 1)])
        var other = Self.map([Vec3(0, 0, 1)])
        other.featureConfig = FeatureConfigID(name: "sift-2000", version: 1)
        #expect(throws: MapMerge.MergeError.self) {
            _ = try MapMerge.merge(other, into: base, baseFromAddition: .identity)
        }
    }

    /// Patches follow their points: the base keeps its own, added points bring the addition's, and a
    /// map without patches contributes zeros (no patch).
    @Test func patchesFollowTheirPoints() throws {
        let shared = (0..<4).map { Vec3(Double($0), 0, 2) }
        var base = Self.map(shared)
        base.pointPatches = (0..<4).flatMap { [UInt8](repeating: UInt8(10 + $0), count: PointPatch.count) }
        var addition = Self.map(shared + [Vec3(9, 0, 2)], code: "MAP_MORE")
        for b in 0..<32 { addition.pointDescriptors[4 * 32 + b] = ~addition.pointDescriptors[b] }
        addition.pointPatches = (0..<5).flatMap { [UInt8](repeating: UInt8(50 + $0), count: PointPatch.count) }
        let (merged, _) = try MapMerge.merge(addition, into: base, baseFromAddition: .identity)
        let patches = try #require(merged.pointPatches)
        #expect(patches.count == 5 * PointPatch.count)
        #expect(patches[0] == 10 && patches[3 * PointPatch.count] == 13 && patches[4 * PointPatch.count] == 54)
        addition.pointPatches = nil
        let (mixed, _) = try MapMerge.merge(addition, into: base, baseFromAddition: .identity)
        #expect(mixed.pointPatches?[4 * PointPatch.count] == 0)
        try mixed.validate()
    }
}
