import FuzzSupport
import VPSProtocol

/// `POST /v1/vps/map/query` bodies.
@_cdecl("FuzzJSONQuery_main")
public func fuzzJSONQueryMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    fuzzMain(
        argc, argv,
        seeds: {
            [
                "nested": Array(
                    #"{"mapCode":"MAP_ABCDEFGHIJKL","cameraIntrinsics":{"fx":500,"fy":500,"px":320,"py":240},"resolution":{"width":640,"height":480},"isRightHanded":true,"hintPosition":[1,2,3],"hintRadius":5,"queryImage":"data:image/jpeg;base64,/9j/4AAQ"}"#
                        .utf8),
                "flat": Array(
                    #"{"mapSetCode":"MSET_ABCDEFGHIJKL","fx":500,"fy":500,"px":320,"py":240,"width":640,"height":480,"hintMapCodes":["MAP_ABCDEFGHIJKL"],"geoHint":"1,2,3","queryImage":"/9j/"}"#
                        .utf8),
            ]
        }
    ) { data, count in
        _ = try? JSONQuery.parse(bytes(data, count))
        return 0
    }
}
