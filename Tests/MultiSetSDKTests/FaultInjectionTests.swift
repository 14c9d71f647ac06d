import Foundation
import Testing
import VPSGeometry

@testable import MultiSetSDK

/// Thousands of seeded event orders with network faults: every run ends in exactly one way and the
/// session never gets stuck.
@Suite struct FaultInjectionTests {
    static func isTerminal(_ e: MultiSetEvent) -> Bool {
        switch e {
        case .localizationSuccess, .localizationFailure, .localizationFalsePositive: true
        default: false
        }
    }

    static let replies: [(Int, String)] = [
        (200, Bodies.single()), (200, Bodies.single(x: 15)), (200, Bodies.notFound), (500, "boom"),
        (401, #"{"message":"expired","code":"TOKEN_EXPIRED"}"#), (200, #"{"poseFound":tr"#), (200, "<<garbage>>"),
        (400, #"{"message":"bad","code":"BAD_REQUEST"}"#), (429, "slow down"), (200, Bodies.multi()),
    ]

    @Test func randomizedFaults() {
        var failures: [String] = []
        for seed in 0..<2000 {
            if let problem = Self.run(seed: UInt64(seed)) { failures.append("seed \(seed): \(problem)") }
            if failures.count > 3 { break }
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    /// One seeded scenario; returns a description of the first violated invariant.
    static func run(seed: UInt64) -> String? {
        var rng = SplitMix64(seed: seed)
        let h = SDKHarness(tokenLifetime: 120)
        h.start(
            SDKHarness.config {
                $0.localizationMode = Bool.random(using: &rng) ? .singleFrame : .multiFrame
                $0.firstLocalizationUntilSuccess = Bool.random(using: &rng)
                $0.poseConsistencyCheck = Bool.random(using: &rng)
                $0.relocalization = Bool.random(using: &rng)
                $0.autoLocalize = Bool.random(using: &rng)
            })
        h.sdk.startAutoLocalizationIfNeeded()
        var quietFrom: [Int] = []  // event counts at stop(): no terminal callback until the next run starts
        for _ in 0..<Int.random(in: 10...40, using: &rng) {
            switch Int.random(in: 0..<13, using: &rng) {
            case 0, 1, 2:
                let (s, b) = replies[Int.random(in: 0..<replies.count, using: &rng)]
                _ = h.transport.respond(s, b)
            case 3: _ = h.transport.fail(Bool.random(using: &rng) ? .timedOut : .network("reset"))
            case 4, 5: h.clock.advance(by: [0.05, 0.5, 1.0, 1.5, 5, 61][Int.random(in: 0..<6, using: &rng)])
            case 6: h.sdk.localize()
            case 7:
                h.sdk.stopLocalization()
                quietFrom.append(h.events.count)
            case 8: h.sdk.notifyTracking(.limited(.excessiveMotion))
            case 9: h.sdk.notifyTracking(.normal)
            case 10: h.sdk.setAppActive(Bool.random(using: &rng))
            case 11: if !h.sdk.isAuthenticated { h.sdk.initialize(config: h.sdk.config!, callback: h.callback) }
            default: h.sdk.notifyWorldOriginReset()
            }
        }
        // Drain: active, tracking, every query answered with the canonical fix; bounded steps.
        h.sdk.setAppActive(true)
        h.sdk.notifyTracking(.normal)
        var steps = 0
        while steps < 200 && (h.sdk.isLocalizing || h.transport.pendingCount > 0 || h.clock.pendingCount > 0) {
            if !h.sdk.isAuthenticated { h.sdk.initialize(config: h.sdk.config!, callback: h.callback) }
            let multi = h.transport.requests.last?.url.path.hasSuffix("multi-image-query") == true
            _ = h.transport.respond(200, multi ? Bodies.multi() : Bodies.single())
            _ = h.transport.respond(200, Bodies.multi(), path: "multi-image-query")
            h.clock.advance(by: 1.0)
            steps += 1
        }
        let events = h.events
        if h.sdk.isLocalizing || h.clock.pendingCount > 0 { return "stuck: \(h.clock.pendingDelays)" }
        // Stage grammar: capturing → [uploading → awaitingResponse] → idle.
        var open = false
        var terminalAllowed = false
        for (i, e) in events.enumerated() {
            if case .stageChanged(let s, _) = e {
                switch s {
                case .capturing:
                    if open { return "capturing twice at \(i)" }
                    open = true
                    terminalAllowed = false
                case .uploading, .awaitingResponse:
                    if !open { return "\(s) outside a run at \(i)" }
                case .idle:
                    if !open { return "idle outside a run at \(i)" }
                    open = false
                    terminalAllowed = true
                }
            } else if isTerminal(e) {
                if case .localizationFailure(let error) = e, error.code == .notAuthenticated, !terminalAllowed {
                    continue
                }
                if !terminalAllowed { return "terminal callback without a finished run at \(i): \(e)" }
                terminalAllowed = false
            }
        }
        for start in quietFrom {
            for e in events[start...] {
                if case .stageChanged(.capturing, _) = e { break }
                if isTerminal(e), e != .localizationFailure(.notAuthenticated) {
                    return "terminal after stop: \(e)"
                }
            }
        }
        return nil
    }
}
