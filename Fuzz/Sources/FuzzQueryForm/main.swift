import FuzzSupport
import VPSProtocol

/// Query-form validation of all three query routes over a decoded multipart body.
@_cdecl("FuzzQueryForm_main")
public func fuzzQueryFormMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    fuzzMain(
        argc, argv,
        seeds: {
            var common = QueryCommon(
                mapSetCode: "MSET_ABCDEFGHIJKL",
                intrinsics: QueryIntrinsics(fx: 500, fy: 500, px: 320, py: 240, width: 640, height: 480))
            common.hints.geoHint = [1, 2, 3]
            common.hints.hintPosition = [1, 2, 3]
            common.hints.hintMapCodes = ["MAP_ABCDEFGHIJKL"]
            let frame = QueryFrame(
                image: [0xFF, 0xD8], pose: ImagePoseData(x: 0, y: 0, z: 0, qx: 0, qy: 0, qz: 0, qw: 1))
            return [
                "single": Multipart.encode(
                    SingleFrameQueryRequest(common: common, image: [0xFF, 0xD8]).parts, boundary: "fuzzB"),
                "multi": Multipart.encode(
                    MultiFrameQueryRequest(common: common, frames: Array(repeating: frame, count: 4)).parts,
                    boundary: "fuzzB"),
                "object": Multipart.encode(
                    ObjectQueryRequest(
                        objectCodes: ["OBJ_ABCDEFGHIJKL"], intrinsics: common.intrinsics, isRightHanded: true,
                        image: [1]
                    ).parts,
                    boundary: "fuzzB"),
            ]
        }
    ) { data, count in
        guard let parts = try? Multipart.decode(bytes(data, count), boundary: "fuzzB", maxParts: 512) else { return 0 }
        let form = FormFields(parts: parts)
        _ = try? SingleFrameQueryRequest(form: form)
        _ = try? MultiFrameQueryRequest(form: form)
        _ = try? ObjectQueryRequest(form: form)
        return 0
    }
}
