import Foundation
import FuzzSupport
import VPSCapture

/// captures.json: decoding and validation (the server then confines every image path to the upload).
@_cdecl("FuzzCaptures_main")
public func fuzzCapturesMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    fuzzMain(
        argc, argv,
        seeds: {
            let frame =
                #"{"id":"f0","image":"images/a.jpg","timestamp":0,"intrinsics":{"fx":500,"fy":500,"cx":320,"cy":240,"width":640,"height":480},"arPose":{"position":[0,0,0],"rotation":[0,0,0,1]},"trackingState":"normal","gps":{"latitude":1,"longitude":2,"altitude":3,"horizontalAccuracy":4}}"#
            return [
                "dataset": Array(
                    #"{"format":"multiset-captures","version":1,"device":{"model":"m","name":"n"},"frames":[\#(frame)],"mesh":"mesh.ply"}"#
                        .utf8)
            ]
        }
    ) { data, count in
        if let dataset = try? JSONDecoder().decode(CaptureDataset.self, from: Data(bytes(data, count))) {
            _ = try? dataset.validate()
        }
        return 0
    }
}
