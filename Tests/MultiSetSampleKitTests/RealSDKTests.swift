import Foundation
import MultiSetSDK
import Testing

@testable import MultiSetSampleKit

/// The view models over the real `MultiSet` (through its `MultiSetControlling` conformance), with an
/// in-memory server and the virtual clock.
@Suite struct RealSDKTests {
    /// Token and plan answers; the token endpoint rejects until `accept` is set.
    final class TokenServer: HTTPTransport, @unchecked Sendable {
        private let lock = NSLock()
        private var accepting = false
        var accept: Bool {
            get { lock.withLock { accepting } }
            set { lock.withLock { accepting = newValue } }
        }

        struct Done: TransportTask {
            func cancel() {}
        }

        func send(
            _ request: HTTPRequest, bodySent: @escaping @Sendable () -> Void,
            completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
        ) -> any TransportTask {
            bodySent()
            let path = request.url.path
            let body: String
            var status = 200
            if path.hasSuffix("/m2m/token") {
                if accept {
                    body = #"{"token":"t","expiresOn":"2030-01-01T00:00:00.000Z"}"#
                } else {
                    status = 401
                    body = #"{"message":"Invalid client credentials","code":"INVALID_CREDENTIALS"}"#
                }
            } else if path.hasSuffix("/account/plan-details") {
                body = #"{"apiCalls":0,"storage":0,"mapsCount":1,"watermark":true}"#
            } else {
                status = 404
                body = #"{"message":"Not found","code":"NOT_FOUND"}"#
            }
            completion(.success(HTTPResponse(status: status, body: Data(body.utf8))))
            return Done()
        }
    }

    @Test func landingAndARScreenOverTheRealSDK() {
        let queue = DispatchQueue(label: "sample.tests.callbacks")
        let clock = ManualScheduler()
        let server = TokenServer()
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("sample-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let sdk = MultiSet(
            environment: MultiSetEnvironment(
                clock: clock, scheduler: clock, transport: server, cacheDirectory: cache, logger: .silent,
                callbackQueue: queue))
        var config = Fixtures.config()
        config.baseURL = "http://127.0.0.1:9/v1"
        config.autoLocalize = false
        let landing = LandingViewModel(sdk: sdk, delegate: MultiSetSDKDelegate(), makeConfig: { config })
        func drain() {
            clock.runDue()
            queue.sync {}
        }

        landing.onAppear()
        drain()
        #expect(sdk.isInitialized && !sdk.isAuthenticated)
        #expect(landing.statusText == "Authentication failed")
        #expect(landing.delegate.lastError?.hasPrefix("Authentication Failed") == true)
        #expect(landing.isAuthenticateEnabled && !landing.isStartLocalizationEnabled)

        server.accept = true
        landing.authenticate()
        drain()
        #expect(sdk.isAuthenticated && landing.statusText == "Authenticated")
        #expect(landing.isStartLocalizationEnabled && landing.mapText == "Map: MAP_TEST00000001")
        landing.selectedMode = .singleFrame
        #expect(sdk.config?.localizationMode == .singleFrame)

        let ar = ARLocalizationViewModel(sdk: sdk, delegate: landing.delegate, scheduler: clock, clock: clock)
        ar.onAppear()
        sdk.notifyTracking(.normal)
        drain()
        clock.advance(by: 0.1)
        #expect(ar.isTrackingNormal && ar.isLocalizeEnabled)
        #expect(ar.watermarkClearance == 44)
        ar.onDisappear()
        sdk.release()
        drain()
    }
}
