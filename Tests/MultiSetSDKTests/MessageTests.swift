import Foundation
import Testing

@testable import MultiSetSDK

/// Every SPEC §19.1 message, produced through the public API.
@Suite struct MessageTests {
    static func authFailures(_ events: [MultiSetEvent]) -> [String] {
        events.compactMap { if case .authenticationFailure(let m) = $0 { return m } else { return nil } }
    }

    static func objectFailures(_ events: [MultiSetEvent]) -> [String] {
        events.compactMap { if case .objectTrackingFailure(let m) = $0 { return m } else { return nil } }
    }

    @Test func initializeMessages() {
        let h = SDKHarness()
        h.sdk.initialize(config: MultiSetConfig(), callback: h.callback)
        var c = MultiSetConfig()
        c.clientId = "a"
        c.clientSecret = "b"
        h.sdk.initialize(config: c, callback: h.callback)
        #expect(
            Self.authFailures(h.events) == [
                "Missing clientId or clientSecret", "Missing mapCode, mapSetCode, or objectCodes",
            ])
        #expect(!h.sdk.isInitialized)
    }

    @Test func tokenFailures() {
        let h = SDKHarness(autoToken: false)
        h.start()
        #expect(h.events == [.sdkReady])
        h.transport.respond(401, #"{"message":"Invalid credentials","code":"INVALID_CREDENTIALS"}"#)
        h.flush()
        #expect(Self.authFailures(h.events) == ["Authentication Failed: Invalid credentials"])
        #expect(h.sdk.isInitialized && !h.sdk.isAuthenticated)
        h.sdk.localize()
        #expect(SDKHarness.failureMessages(h.events) == ["Not authenticated"])
        // D10: initialize again authenticates again.
        h.sdk.initialize(config: SDKHarness.config(), callback: h.callback)
        h.transport.respond(200, "<html>")
        h.flush()
        #expect(Self.authFailures(h.events).last == "Authentication Failed: Unable to parse response")
        h.sdk.initialize(config: SDKHarness.config(), callback: h.callback)
        h.transport.respond(500, "oops")
        h.flush()
        #expect(Self.authFailures(h.events).last == "Authentication Failed: HTTP 500")
        h.sdk.initialize(config: SDKHarness.config(), callback: h.callback)
        h.sdk.initialize(config: SDKHarness.config(), callback: h.callback)
        #expect(h.logs.lines.contains("Already initialized"))
    }

    @Test func runMessages() {
        let cases: [(Int, String, String)] = [
            (
                200, #"{"poseFound":false,"message":"Pose not found: TOO_FEW_INLIERS"}"#,
                "Pose not found: TOO_FEW_INLIERS"
            ),
            (200, #"{"poseFound":false}"#, "Pose not found"),
            (200, #"{"poseFound":true,"position":{"x":1,"y":2,"z":3}}"#, "Missing pose data in response"),
            (
                200, #"{"poseFound":true,"position":{"x":1,"y":2,"z":3},"rotation":{"x":0,"y":0,"z":0,"w":0.1}}"#,
                "Missing pose data in response"
            ),
            (200, Bodies.single(confidence: 0.1), "Low confidence: 0.10"),
            (200, #"{"poseFound":tr"#, "Unable to decode response"),
            (200, "garbage", "Unable to decode response"),
            (503, "Service Unavailable", "API error: HTTP 503: Service Unavailable"),
            (
                409, #"{"message":"Map is not active","code":"MAP_NOT_ACTIVE"}"#,
                "API error: HTTP 409: Map is not active"
            ),
        ]
        for (status, body, message) in cases {
            let h = SDKHarness()
            h.start(
                SDKHarness.config {
                    $0.firstLocalizationUntilSuccess = false; $0.confidenceCheck = true
                })
            h.sdk.localize()
            h.answerQuery(status, body)
            #expect(SDKHarness.failureMessages(h.events) == [message], "\(body)")
        }
    }

    @Test func networkAndMapMessages() {
        let h = SDKHarness()
        h.start(SDKHarness.config { $0.firstLocalizationUntilSuccess = false })
        h.sdk.localize()
        h.transport.fail(.network("connection refused"))
        h.flush()
        #expect(SDKHarness.failureMessages(h.events) == ["Network error: connection refused"])
        h.sdk.localize()
        h.transport.fail(.timedOut)
        h.flush()
        #expect(SDKHarness.failureMessages(h.events).last == "Request timed out")
        #expect(h.sdk.lastLocalizationError?.kind == .network)

        let o = SDKHarness()
        o.start(
            SDKHarness.config {
                $0.mapCode = ""; $0.objectCodes = ["OBJ_AAAAAAAAAAAA"]
            })
        o.sdk.localize()
        #expect(SDKHarness.failureMessages(o.events) == ["Missing mapCode or mapSetCode"])
        let n = SDKHarness()
        n.sdk.attach(frameSource: n.frames)
        n.start(SDKHarness.config { $0.firstLocalizationUntilSuccess = false })
        n.sdk.startObjectTracking()
        #expect(Self.objectFailures(n.events) == ["No object codes configured"])
        let u = MultiSet(environment: MultiSetEnvironment(logger: .silent))
        u.localize()
        #expect(!u.isLocalizing)
    }

    @Test func noFrameSourceMeansNoFrames() {
        let h = SDKHarness()
        h.sdk.notifyTracking(.normal)
        h.sdk.initialize(config: SDKHarness.config { $0.firstLocalizationUntilSuccess = false }, callback: h.callback)
        h.sdk.localize()
        #expect(SDKHarness.failureMessages(h.events) == ["No frames captured"])
    }

    @Test func objectTracking() {
        let h = SDKHarness()
        let base = h.transport.handler
        h.transport.handler = { request in
            let path = request.url.path
            if path.hasSuffix("/vps/object/OBJ_AAAAAAAAAAAA") {
                return .respond(200, #"{"_id":"obj1","objectMesh":{"meshLink":"o.glb"}}"#)
            }
            if path.hasSuffix("/file") { return .respond(200, #"{"url":"http://vps.test/v1/files/download?key=o"}"#) }
            if path.hasSuffix("/files/download") { return .respondBytes(200, Bodies.glb) }
            return base(request)
        }
        h.start(
            SDKHarness.config {
                $0.objectCodes = ["OBJ_AAAAAAAAAAAA"]
                $0.firstObjectTrackingUntilSuccess = true
                $0.backgroundObjectTracking = false
            })
        h.sdk.startObjectTracking()
        #expect(h.sdk.isObjectTrackingActive)
        h.advance(1.0)
        #expect(h.transport.requests("/vps/object/query").count == 1)
        h.transport.respond(200, #"{"poseFound":false}"#, path: "/vps/object/query")
        h.flush()
        #expect(Self.objectFailures(h.events).isEmpty)
        h.advance(1.0)
        h.transport.respond(
            200,
            #"{"poseFound":true,"position":{"x":0,"y":0,"z":1},"rotation":{"x":0,"y":0,"z":0,"w":1},"confidence":0.8,"objectCodes":["OBJ_AAAAAAAAAAAA"]}"#,
            path: "/vps/object/query")
        let events = h.events
        #expect(events.contains(.objectTrackingSuccess(objectCode: "OBJ_AAAAAAAAAAAA", confidence: 0.8)))
        #expect(events.contains(.objectMeshLoaded(objectCode: "OBJ_AAAAAAAAAAAA")))
        #expect(h.sdk.hasTrackedObject)
        #expect(
            h.scene.calls.contains(
                .placeObject(
                    objectCode: "OBJ_AAAAAAAAAAAA",
                    pose: Pose(position: SIMD3(0, 1.5, -1), rotation: simd_quatf(ix: 0, iy: 0, iz: 0, r: 1)))))
        h.sdk.startObjectTracking()
        h.sdk.notifyTracking(.limited(.other))
        h.advance(1.0)
        h.advance(3.0)
        #expect(Self.objectFailures(h.events) == ["No captured frame available"])
        h.sdk.stopObjectTracking()
        #expect(!h.sdk.isObjectTrackingActive)
        h.sdk.startObjectTracking()
        h.sdk.notifyTracking(.normal)
        h.advance(1.0)
        h.transport.respond(200, #"{"poseFound":false}"#, path: "/vps/object/query")
        #expect(Self.objectFailures(h.events).last == "Object not found")
    }
}
