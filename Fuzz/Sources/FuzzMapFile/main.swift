import FuzzSupport
import VPSFeatures
import VPSGeometry
import VPSMap

/// Map files with a valid checksum: the trailing CRC-32 is recomputed for every input, as an
/// attacker uploading a map would, so the decoder's structure checks are what is exercised.
@_cdecl("FuzzMapFile_main")
public func fuzzMapFileMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    fuzzMain(
        argc, argv,
        seeds: {
            let map = MapData(
                code: "MAP_ABCDEFGHIJKL", name: "seed", featureConfig: FeatureConfigID(name: "orb-2000", version: 1),
                descriptorBytes: 32, positions: [Vec3(0, 0, 1), Vec3(1, 0, 2), Vec3(0, 1, 3)],
                colors: [UInt8](repeating: 7, count: 9), pointDescriptors: [UInt8](repeating: 3, count: 96))
            var patched = map
            patched.pointPatches = (0..<(3 * PointPatch.count)).map { UInt8(truncatingIfNeeded: $0 * 7) }
            return ["small": try MapFile.encode(map), "patches": try MapFile.encode(patched)]
        }
    ) { data, count in
        var input = bytes(data, count)
        if input.count >= 8 {
            let crc = crc32(input[0..<(input.count - 4)])
            for k in 0..<4 { input[input.count - 4 + k] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(k))) }
        }
        _ = try? MapFile.decode(input)
        return 0
    }
}
