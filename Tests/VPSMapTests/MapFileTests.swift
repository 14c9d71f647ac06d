import Foundation
import Testing
import VPSFeatures
import VPSGeometry
import VPSTestSupport

@testable import VPSMap

@Suite struct MapFileTests {
    static func sampleMap(seed: String, points: Int = 500, keyframes: Int = 12) -> MapData {
        var rng = SplitMix64(testName: seed)
        let d = 32
        var map = MapData(
            code: "MAP_TEST00000001", name: "sample", featureConfig: FeatureConfigID(name: "orb-2000", version: 1),
            descriptorBytes: d)
        for _ in 0..<points {
            map.positions.append(rng.vector(scale: 5))
            map.colors += [
                UInt8(rng.nextInt(below: 256)), UInt8(rng.nextInt(below: 256)), UInt8(rng.nextInt(below: 256)),
            ]
            map.pointDescriptors += (0..<d).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        }
        let cameras: [LensDistortion] = [
            .none, .simpleRadial(k: -0.1), .radial(k1: 0.01, k2: -0.002), .opencv(k1: 0.1, k2: 0, p1: 0.001, p2: 0),
            .fullOpenCV(k1: -0.2, k2: 0.05, p1: 0.001, p2: -0.001, k3: 0.01, k4: 0.1, k5: -0.02, k6: 0.003),
            .openCVFisheye(k1: 0.05, k2: -0.01, k3: 0.002, k4: -0.0003), .fov(omega: 0.93),
            .simpleRadialFisheye(k: 0.03), .radialFisheye(k1: 0.03, k2: -0.004),
            .thinPrismFisheye(
                k1: 0.02, k2: -0.003, p1: 0.0004, p2: -0.0002, k3: 0.0001, k4: 0, sx1: 0.0003, sy1: -0.0001),
            .radTanThinPrismFisheye(coefficients: (1...12).map { Double($0) * 1e-3 }),
        ]
        for k in 0..<keyframes {
            let m = 50 + k
            map.keyframes.append(
                Keyframe(
                    id: UInt32(k * 3), name: "images/frame \(k).jpg",
                    camera: Camera(
                        fx: 500, fy: 501, cx: 320, cy: 240, width: 640, height: 480,
                        distortion: cameras[k % cameras.count]),
                    camFromMap: Rigid3(rotation: rng.rotation(), translation: rng.vector(scale: 3)),
                    keypoints: (0..<m).map { _ in SIMD2<Float>(Float(rng.uniform(0...640)), Float(rng.uniform(0...480)))
                    },
                    descriptors: (0..<(m * d)).map { _ in UInt8(truncatingIfNeeded: rng.next()) },
                    pointIndices: (0..<m).map { _ in Int32(rng.nextInt(below: points + 1)) - 1 }))
        }
        map.georeference = Georeference(
            origin: GeoCoordinate(latitude: 47.3769, longitude: 8.5417, altitude: 408), headingDegrees: 12.5)
        map.mesh = Array("glTF-fake".utf8)
        return map
    }

    @Test func roundTripIsExact() throws {
        let map = Self.sampleMap(seed: "MapFile.roundTrip")
        let bytes = try MapFile.encode(map)
        #expect(try MapFile.decode(bytes) == map)
        var bare = map
        bare.georeference = nil
        bare.mesh = nil
        bare.keyframes = []
        #expect(try MapFile.decode(try MapFile.encode(bare)) == bare)
    }

    @Test func corruptTruncatedAndForeignFilesAreRejected() throws {
        let bytes = try MapFile.encode(Self.sampleMap(seed: "MapFile.corrupt", points: 50, keyframes: 2))
        #expect(throws: MapFileError.notAMapFile) { try MapFile.decode(Array("PNG....".utf8) + bytes) }
        #expect(throws: MapFileError.truncated) { try MapFile.decode(Array(bytes.prefix(5))) }
        var version = bytes
        version[8] = 3
        #expect(throws: MapFileError.unsupportedVersion(3)) { try MapFile.decode(version) }
        for cut in [12, 40, bytes.count / 2, bytes.count - 1] {
            #expect(throws: MapFileError.self) { try MapFile.decode(Array(bytes.prefix(cut))) }
        }
        var flipped = bytes
        flipped[bytes.count / 2] ^= 0x40
        #expect(throws: MapFileError.checksumMismatch) { try MapFile.decode(flipped) }
    }

    @Test func seededMutationsNeverCrash() throws {
        let bytes = try MapFile.encode(Self.sampleMap(seed: "MapFile.fuzz", points: 30, keyframes: 2))
        var rng = SplitMix64(testName: "MapFile.fuzz.mutations")
        for _ in 0..<2000 {
            var b = bytes
            if rng.nextUnit() < 0.5 {
                b = Array(b.prefix(rng.nextInt(below: b.count)))
            } else {
                b[rng.nextInt(below: b.count)] = UInt8(truncatingIfNeeded: rng.next())
            }
            _ = try? MapFile.decode(b)
        }
    }

    @Test func invalidMapsAreNotWritten() {
        var map = Self.sampleMap(seed: "MapFile.invalid", points: 10, keyframes: 1)
        map.positions[3] = Vec3(.nan, 0, 0)
        #expect(throws: MapFileError.self) { try MapFile.encode(map) }
        map = Self.sampleMap(seed: "MapFile.invalid2", points: 10, keyframes: 1)
        map.keyframes[0].pointIndices[0] = 10
        #expect(throws: MapFileError.self) { try MapFile.encode(map) }
    }

    @Test func atomicWriteReplacesAndLeavesNoTemporaryFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapfile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("MAP_TEST00000001.vpsmap")
        let a = Self.sampleMap(seed: "MapFile.a", points: 20, keyframes: 1)
        let b = Self.sampleMap(seed: "MapFile.b", points: 40, keyframes: 2)
        try MapFile.write(a, to: url)
        try MapFile.write(b, to: url)
        #expect(try MapFile.read(from: url) == b)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["MAP_TEST00000001.vpsmap"])
        #expect(throws: MapFileError.self) { try MapFile.read(from: folder.appendingPathComponent("missing.vpsmap")) }
    }
}

/// Point patches (format version 2) round-trip; maps without them stay version 1.
@Suite struct MapFilePatchTests {
    @Test func patchesRoundTripAsVersionTwo() throws {
        var map = MapFileTests.sampleMap(seed: "MapFile.patches", points: 40, keyframes: 2)
        var rng = SplitMix64(testName: "MapFile.patchBytes")
        map.pointPatches = (0..<(PointPatch.count * 40)).map { _ in UInt8(rng.nextInt(below: 256)) }
        let bytes = try MapFile.encode(map)
        #expect(bytes[8] == 2)
        #expect(try MapFile.decode(bytes) == map)
        var plain = map
        plain.pointPatches = nil
        let old = try MapFile.encode(plain)
        #expect(old[8] == 1)
        #expect(try MapFile.decode(old).pointPatches == nil)
        #expect(bytes.count - old.count - PointPatch.count * 40 > 0)
    }

    @Test func patchCountMustMatchPoints() {
        var map = MapFileTests.sampleMap(seed: "MapFile.patchCount", points: 10, keyframes: 1)
        map.pointPatches = [UInt8](repeating: 1, count: PointPatch.count * 9)
        #expect(throws: MapFileError.self) { try MapFile.encode(map) }
    }
}
