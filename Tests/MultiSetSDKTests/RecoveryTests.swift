import Foundation
import Testing

@testable import MultiSetSDK

@Suite struct RecoveryTests {
    /// A harness whose transport also serves the map, file and GLB endpoints.
    static func meshHarness(_ edit: (inout MultiSetConfig) -> Void = { _ in }) -> SDKHarness {
        let h = SDKHarness()
        h.transport.handler = meshRoutes(glb: Bodies.glb, base: h.transport.handler)
        h.start(
            SDKHarness.config {
                $0.meshVisualization = true; edit(&$0)
            })
        return h
    }

    /// The map, file-link and download endpoints of `MAP_AAAAAAAAAAAA`, serving `glb`; other paths go to `base`.
    static func meshRoutes(
        glb: Data, base: @escaping (HTTPRequest) -> FakeTransport.Reply
    ) -> (HTTPRequest) -> FakeTransport.Reply {
        { request in
            let path = request.url.path
            if path.hasSuffix("/vps/map/MAP_AAAAAAAAAAAA") {
                return .respond(
                    200,
                    #"{"_id":"0123456789abcdef01234567","mapMesh":{"rawMesh":{"type":"glb","meshLink":"meshes/m.glb"}}}"#
                )
            }
            if path.hasSuffix("/file") { return .respond(200, #"{"url":"http://vps.test/v1/files/download?key=k"}"#) }
            if path.hasSuffix("/files/download") { return .respondBytes(200, glb) }
            return base(request)
        }
    }

    @Test func meshLoadsOnceAndIsCached() {
        let h = Self.meshHarness()
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        #expect(h.events.contains(.meshLoaded(mapCode: "MAP_AAAAAAAAAAAA")))
        #expect(h.sdk.hasMapMesh && !h.sdk.isMapMeshLoading)
        #expect(h.scene.mapMeshCodes == ["MAP_AAAAAAAAAAAA"])
        let cached = h.cacheDirectory.appendingPathComponent("mesh_cache/0123456789abcdef01234567.glb")
        #expect(FileManager.default.fileExists(atPath: cached.path))
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        #expect(h.transport.requests("/files/download").count == 1)
        h.sdk.setMeshVisible(false)
        h.flush()
        #expect(h.scene.mapMeshesVisible == false)
        #expect(!h.sdk.isMapMeshVisible)
    }

    @Test func meshFailureIsReported() {
        let h = SDKHarness()
        h.start(SDKHarness.config { $0.meshVisualization = true })
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        h.transport.respond(404, #"{"message":"Map not found","code":"MAP_NOT_FOUND"}"#, path: "MAP_AAAAAAAAAAAA")
        let errors = h.events.compactMap { if case .meshLoadError(let m) = $0 { return m } else { return nil } }
        #expect(errors == ["Mesh load failed: HTTP 404: Map not found"])
    }

    /// SPEC §20 check 8.
    @Test func trackingBreakHidesMeshRetriesEverySecondSilentlyAndShowsMeshOnAccept() {
        let h = Self.meshHarness()
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        #expect(h.scene.mapMeshesVisible)
        _ = h.newEvents()
        h.sdk.notifyTracking(.limited(.excessiveMotion))
        h.flush()
        #expect(h.scene.mapMeshesVisible == false)
        #expect(h.sdk.isMapMeshVisible)
        #expect(!h.sdk.isLocalizing)
        #expect(h.clock.pendingCount == 0)
        h.sdk.notifyTracking(.normal)
        #expect(h.queries.count == 2)
        var times: [TimeInterval] = []
        for _ in 0..<3 {
            times.append(h.clock.now())
            h.answerQuery(200, Bodies.notFound)
            #expect(h.clock.pendingDelays == [1.0])
            #expect(h.sdk.isLocalizing && !h.sdk.isShowingOverlay)
            h.advance(1.0)
        }
        #expect(h.queries.count == 5)
        #expect(zip(times, times.dropFirst()).allSatisfy { abs($1 - $0 - 1) < 1e-9 })
        var events = h.newEvents()
        #expect(
            events.allSatisfy {
                switch $0 {
                case .stageChanged(_, let bg): bg
                case .trackingStateChanged: true
                default: false
                }
            })
        h.answerQuery(200, Bodies.single())
        events = h.newEvents()
        #expect(SDKHarness.successes(events).count == 1)
        #expect(h.scene.mapMeshesVisible)
        #expect(!h.sdk.isLocalizing)
    }

    @Test func relocalizationStopsOnStopAndNonTransientError() {
        let h = SDKHarness()
        h.start()
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        h.sdk.notifyTracking(.interrupted)
        h.sdk.notifyTracking(.normal)
        h.answerQuery(400, #"{"message":"bad","code":"BAD_REQUEST"}"#)
        #expect(SDKHarness.failureMessages(h.events) == ["API error: HTTP 400: bad"])
        #expect(!h.sdk.isLocalizing && h.clock.pendingCount == 0)
        h.sdk.notifyTracking(.interrupted)
        h.sdk.notifyTracking(.normal)
        h.sdk.stopLocalization()
        // The abandoned request is cancelled with its timeout; a late answer changes nothing.
        #expect(!h.sdk.isLocalizing && h.clock.pendingCount == 0)
        h.answerQuery(200, Bodies.single())
        #expect(SDKHarness.successes(h.events).count == 1)
    }

    @Test func backgroundReturnIsANewWorldFrame() {
        let h = Self.meshHarness()
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        h.sdk.setAppActive(false)
        h.sdk.notifyTracking(.interrupted)
        h.sdk.setAppActive(true)
        h.flush()
        #expect(h.scene.mapMeshesVisible == false)
        h.sdk.notifyTracking(.initializing)
        h.sdk.notifyTracking(.normal)
        _ = h.newEvents()
        h.answerQuery(200, Bodies.single(x: 30))
        let events = h.newEvents()
        #expect(events.contains(.anchorTrustChanged(.provisional)))
        #expect(SDKHarness.successes(events).count == 1)
        #expect(h.scene.mapMeshesVisible)
    }

    @Test func resetSessionClearsEverything() {
        let h = Self.meshHarness()
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        h.sdk.resetSession()
        #expect(!h.sdk.hasLocalized && h.sdk.lastResult == nil && !h.sdk.hasMapMesh && h.sdk.anchorTrust == nil)
        #expect(h.frames.resets == 1)
        h.flush()
        #expect(h.scene.calls.suffix(3) == [.removeAllMapMeshes, .removeAllObjectMeshes, .resetMapRoot])
        #expect(h.scene.mapRootPose == .identity)
    }

    @Test func updateConfigEffects() {
        let h = Self.meshHarness { $0.backgroundLocalization = true }
        h.sdk.localize()
        h.answerQuery(200, Bodies.single())
        #expect(h.clock.pendingDelays == [30])
        var c = h.sdk.config!
        c.bgLocalizationDurationSeconds = 20
        h.advance(5)
        h.sdk.updateConfig(c)
        #expect(h.clock.pendingDelays == [20])
        c.backgroundLocalization = false
        h.sdk.updateConfig(c)
        #expect(h.clock.pendingCount == 0)
        c.clientSecret = "other"
        h.sdk.updateConfig(c)
        #expect(h.sdk.config?.clientSecret == "secret")
        c.mapCode = "MAP_BBBBBBBBBBBB"
        c.autoLocalize = true
        h.sdk.updateConfig(c)
        #expect(!h.sdk.hasLocalized && !h.sdk.hasMapMesh && h.sdk.anchorTrust == nil)
        #expect(h.frames.resets == 0)
        #expect(h.clock.pendingDelays == [1.5])
        c.meshVisualization = false
        h.sdk.updateConfig(c)
        h.sdk.updateConfig(c)
        let fresh = MultiSet(environment: MultiSetEnvironment(logger: .silent))
        fresh.updateConfig(c)
        #expect(!fresh.isInitialized)
        h.sdk.setQueryMode(.vps2)
        h.sdk.setLocalizationMode(.multiFrame)
        #expect(h.sdk.config?.queryMode == .vps2 && h.sdk.config?.localizationMode == .multiFrame)
    }

    @Test func gpsHintSnapshot() {
        final class Provider: LocationProvider, @unchecked Sendable {
            var latest: GeoFix?
            var started = 0
            func start() { started += 1 }
            func stop() {}
        }
        let h = SDKHarness()
        let p = Provider()
        p.latest = GeoFix(latitude: 47.5, longitude: 8.5, altitude: 400, accuracy: 5, timestamp: h.clock.wallDate())
        h.sdk.setLocationProvider(p)
        h.start(
            SDKHarness.config {
                $0.passGeoPose = true; $0.hintPosition = "1,2,3"
            })
        h.sdk.startGpsUpdates()
        #expect(p.started == 1)
        h.sdk.localize()
        let body = String(decoding: h.queries[0].body, as: UTF8.self)
        #expect(body.contains("47.5,8.5,400"))
        #expect(body.contains("hintRadius"))
        h.answerQuery(200, Bodies.single())
        h.advance(31)
        h.sdk.localize()
        let body2 = String(decoding: h.queries[1].body, as: UTF8.self)
        #expect(!body2.contains("geoHint"))
        #expect(body2.contains("hintPosition"))
    }
}
