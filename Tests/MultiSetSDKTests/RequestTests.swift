import Foundation
import Testing

@testable import MultiSetSDK

@Suite struct RequestTests {
    static func fields(_ request: HTTPRequest) -> String { String(decoding: request.body, as: UTF8.self) }

    /// SPEC §8.4: what every request carries.
    @Test func mapSetRequestFields() {
        let h = SDKHarness()
        h.start(
            SDKHarness.config {
                $0.mapSetCode = "MSET_AAAAAAAAAAAA"
                $0.hintMapCodes = ["MAP_1", "MAP_2"]
                $0.queryMode = .vps2
                $0.geoCoordinatesInResponse = true
                $0.localizationMode = .multiFrame
            })
        h.sdk.localize()
        h.advance(1.5)
        let body = Self.fields(h.queries[0])
        #expect(body.contains("name=\"mapSetCode\"\r\n\r\nMSET_AAAAAAAAAAAA"))
        #expect(!body.contains("name=\"mapCode\""))
        #expect(body.components(separatedBy: "name=\"hintMapCodes\"").count == 3)
        #expect(body.contains("name=\"queryMode\"\r\n\r\nvps-2"))
        #expect(body.contains("name=\"isRightHanded\"\r\n\r\ntrue"))
        #expect(body.contains("name=\"convertToGeoCoordinates\"\r\n\r\ntrue"))
        #expect(!body.contains("hintRadius"))
        #expect(body.contains("name=\"image4\""))
        #expect(h.queries[0].headers["Authorization"]?.hasPrefix("Bearer tok-") == true)
    }

    /// docs/DEPLOY.md: every query names its map (or map set) in `X-MultiSet-Map` as well as in the
    /// body, so nginx can route it by map without reading the body; the retry after a 401 keeps it, and
    /// the token request carries none.
    @Test func queriesCarryTheirMapInTheRoutingHeader() {
        let h = SDKHarness()
        h.start()
        h.sdk.localize()
        h.answerQuery(401, #"{"message":"Token expired","code":"TOKEN_EXPIRED"}"#)
        h.answerQuery(200, Bodies.single())
        #expect(h.queries.count == 2)
        #expect(h.queries.map { $0.headers["X-MultiSet-Map"] } == ["MAP_AAAAAAAAAAAA", "MAP_AAAAAAAAAAAA"])
        #expect(Self.fields(h.queries[0]).contains("name=\"mapCode\"\r\n\r\nMAP_AAAAAAAAAAAA"))
        #expect(h.transport.requests("/m2m/token").allSatisfy { $0.headers["X-MultiSet-Map"] == nil })

        let set = SDKHarness()
        set.start(
            SDKHarness.config {
                $0.mapSetCode = "MSET_AAAAAAAAAAAA"
                $0.localizationMode = .multiFrame
            })
        set.sdk.localize()
        set.advance(1.5)
        #expect(set.queries.first?.headers["X-MultiSet-Map"] == "MSET_AAAAAAAAAAAA")
    }

    /// SPEC §11.3: a map set's relative pose (left-handed) becomes the mesh's right-handed local pose.
    @Test func mapSetMeshLocalPose() {
        let h = SDKHarness()
        let base = h.transport.handler
        h.transport.handler = { request in
            let path = request.url.path
            if path.hasSuffix("/vps/map-set/MSET_AAAAAAAAAAAA") {
                return .respond(
                    200,
                    #"{"mapSet":{"_id":"s","mapSetCode":"MSET_AAAAAAAAAAAA","mapSetData":[{"_id":"e","order":1,"relativePose":{"position":{"x":1,"y":2,"z":3},"rotation":{"qx":0,"qy":0.7071068,"qz":0,"qw":0.7071068}},"map":{"_id":"m2","mapCode":"MAP_AAAAAAAAAAAA"},"baseMap":{}}]}}"#
                )
            }
            if path.hasSuffix("/vps/map/MAP_AAAAAAAAAAAA") {
                return .respond(200, #"{"_id":"m2","mapMesh":{"texturedMesh":{"meshLink":"t.glb"}}}"#)
            }
            if path.hasSuffix("/file") { return .respond(200, #"{"url":"http://vps.test/v1/files/download?key=t"}"#) }
            if path.hasSuffix("/files/download") { return .respondBytes(200, Bodies.glb) }
            return base(request)
        }
        h.start(
            SDKHarness.config {
                $0.mapSetCode = "MSET_AAAAAAAAAAAA"; $0.meshVisualization = true
            })
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        h.flush()
        let added = h.scene.calls.compactMap { call -> Pose? in
            if case .addMapMesh(_, _, let local, _) = call { return local } else { return nil }
        }
        #expect(added.count == 1)
        if let local = added.first {
            #expect(local.position == SIMD3<Float>(-1, 2, 3))
            #expect(abs(local.rotation.vector.y + 0.7071068) < 1e-6 && abs(local.rotation.vector.w - 0.7071068) < 1e-6)
        }
        let key = h.transport.requests("/file").first?.url.query ?? ""
        #expect(key == "key=t.glb")
    }

    @Test func releaseStopsEverything() {
        let h = RecoveryTests.meshHarness()
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        #expect(h.sdk.authToken?.hasPrefix("tok-") == true)
        h.sdk.release()
        #expect(!h.sdk.isInitialized && !h.sdk.isAuthenticated && h.sdk.config == nil && !h.sdk.hasMapMesh)
        #expect(h.sdk.authToken == nil)
        h.sdk.localize()
        #expect(h.queries.count == 1)
        h.flush()
        #expect(h.scene.mapMeshCodes.isEmpty)
    }
}
