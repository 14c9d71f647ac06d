import Foundation
import MultiSetCommandLine
import MultiSetSDK
import Testing
import VPSGeometry
import VPSSimulation

@testable import MultiSetDemo

/// The structure of `multiset demo`'s timeline for a fixed seed, against a stub server answering from
/// the ground truth: what the screen shows, when, and what the SDK reports (numbers in the text are
/// masked; the virtual times are kept). When SDK or view-model behaviour changes on purpose, the test
/// prints the new timeline in golden form: review it and paste it over `golden`.
@Suite struct DemoTimelineTests {
    static func runAct() -> DemoAct.Summary {
        let venue = Venue.generate(.room, seed: 3, texelScale: 4)
        let camera = Camera(fx: 120, fy: 120, cx: 80, cy: 60, width: 160, height: 120)
        var session = ARSessionConfiguration.ideal(camera: camera, frameInterval: 0.1)
        session.initializationDuration = 1
        session.trackingBreaks = [.init(start: 12, duration: 2, jumpDistance: 0.5, jumpYawDegrees: 5)]
        let simulator = ARSessionSimulator(
            venue: venue, trajectory: Trajectory.generate(.walk, in: venue, duration: 34, seed: 3),
            configuration: session, seed: 3)
        var config = MultiSetConfig(clientId: "demo", clientSecret: "secret", mapCode: "MAP_DEMOTEST0001")
        config.baseURL = "http://127.0.0.1:9/v1"
        config.bgLocalizationDurationSeconds = 10
        config.meshVisualization = false
        config.mapAliasingRisk = ["MAP_DEMOTEST0001": 5]
        var script = DemoAct.Script(closeAt: 31)
        script.localizeTaps = [20]
        let act = DemoAct(
            title: "test", venue: venue, points: [], config: config, simulator: simulator, script: script, echo: false)
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("demo-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        return act.run(cacheDirectory: cache) { frame in TruthServer(wrongWindow: 19.9...28, currentFrame: frame) }
    }

    /// Digits (and the decimals around them) replaced by `#`.
    static func masked(_ text: String) -> String {
        var out = ""
        var inNumber = false
        for ch in text {
            if ch.isNumber || (inNumber && ch == ".") {
                if !inNumber { out.append("#") }
                inNumber = true
            } else {
                inNumber = false
                out.append(ch)
            }
        }
        return out
    }

    @Test func timelineStructureForAFixedSeed() {
        let summary = Self.runAct()
        let lines = summary.timeline.map { String(format: "%5.1f ", $0.time) + $0.kind + " " + Self.masked($0.text) }
        if lines != Self.golden { print(lines.map { "\"\($0)\"," }.joined(separator: "\n")) }
        #expect(lines == Self.golden)
        #expect(summary.answers.filter(\.accepted).allSatisfy { $0.error.meters < 0.01 })
        #expect(summary.answers.filter { !$0.accepted }.count == 3)
    }

    static let golden: [String] = [
        "  0.0 sdk Authenticated",
        "  0.0 screen Localize disabled",
        "  0.0 sdk tracking state paused",
        "  1.0 sdk tracking state tracking",
        "  1.0 screen Localize enabled",
        "  2.5 screen overlay “Capturing image # of #” · card “Capturing #/#” · Localize disabled",
        "  3.0 screen overlay “Capturing image # of #” · card “Capturing #/#”",
        "  3.5 screen overlay “Capturing image # of #” · card “Capturing #/#”",
        "  4.0 screen overlay “Uploading…” · card “Uploading…”",
        "  4.1 screen overlay “Matching against the map…” · card “Matching…”",
        "  4.5 sdk fix accepted (multi-frame, confidence #, trust trusted): the answer is # cm / #° from the truth",
        "  4.5 screen card “✓ Localized” · toast “Localization successful” · Localize enabled",
        " 12.0 ar tracking lost (limited: excessiveMotion)",
        " 12.0 sdk tracking state paused",
        " 12.0 screen Localize disabled",
        " 14.0 ar tracking back; the AR pose jumped # m",
        " 14.0 sdk tracking state tracking",
        " 14.0 screen Localize enabled",
        " 14.0 screen card “Background · Capturing #/#” · Localize disabled",
        " 14.6 screen card “Background · Capturing #/#”",
        " 15.1 screen card “Background · Capturing #/#”",
        " 15.5 screen card “Background · Uploading…”",
        " 15.6 screen card “Background · Matching…”",
        " 16.0 sdk fix accepted (multi-frame, confidence #, trust trusted): the answer is # cm / #° from the truth",
        " 16.0 screen card “✓ Background · Localized” · Localize enabled",
        " 20.0 user taps “Localize”",
        " 20.0 screen overlay “Capturing image # of #” · card “Capturing #/#” · Localize disabled",
        " 20.6 screen overlay “Capturing image # of #” · card “Capturing #/#”",
        " 21.0 screen overlay “Capturing image # of #” · card “Capturing #/#”",
        " 21.5 screen overlay “Uploading…” · card “Uploading…”",
        " 21.6 screen overlay “Matching against the map…” · card “Matching…”",
        " 22.0 sdk discarded by the gate (falsePositive, insufficientViewpoints): false positive ##: # m / #° from the anchor (limits # m / #°), # of # viewpoints; the answer was # m / #° from the truth",
        " 22.0 screen card “✗ Not localized” · toast “Localization response received” · alert “Localization Discarded” “The result did not match your tracked position. Walk a few steps to a well-lit, distinctive area and localize again.” [Localize Again | Reset & Start Over | Dismiss] · Localize enabled",
        " 23.5 user taps “Localize Again”",
        " 23.5 screen overlay “Capturing image # of #” · card “Capturing #/#” · Localize disabled",
        " 24.1 screen overlay “Capturing image # of #” · card “Capturing #/#”",
        " 24.5 screen overlay “Capturing image # of #” · card “Capturing #/#”",
        " 25.0 screen overlay “Uploading…” · card “Uploading…”",
        " 25.1 screen overlay “Matching against the map…” · card “Matching…”",
        " 25.5 sdk discarded by the gate (falsePositive, insufficientViewpoints): false positive ##: # m / #° from the anchor (limits # m / #°), # of # viewpoints; the answer was # m / #° from the truth",
        " 25.5 screen card “✗ Not localized” · toast “Localization response received” · alert “Localization Discarded” “The result did not match your tracked position. Walk a few steps to a well-lit, distinctive area and localize again.” [Localize Again | Reset & Start Over | Dismiss]",
        " 25.5 screen overlay “Capturing image # of #” · card “Capturing #/#”",
        " 26.1 screen overlay “Capturing image # of #” · card “Capturing #/#”",
        " 26.5 screen overlay “Capturing image # of #” · card “Capturing #/#”",
        " 27.0 screen overlay “Uploading…” · card “Uploading…”",
        " 27.0 user taps “Dismiss”",
        " 27.1 screen overlay “Matching against the map…” · card “Matching…”",
        " 27.5 sdk discarded by the gate (falsePositive, insufficientViewpoints): false positive ##: # m / #° from the anchor (limits # m / #°), # of # viewpoints; the answer was # m / #° from the truth",
        " 27.5 screen card “✗ Not localized” · alert “Localization Discarded” “The result did not match your tracked position. Walk a few steps to a well-lit, distinctive area and localize again. # responses were discarded in a row. If the map itself looks misplaced, choose Reset & Start Over; the next response becomes the new anchor.” [Localize Again | Reset & Start Over | Dismiss] · Localize enabled",
        " 29.0 user taps “Dismiss”",
        " 31.0 user taps close",
        " 31.1 screen alert “End localization?” [End | Cancel]",
        " 32.6 user taps “End”",
    ]
}

@Suite struct DemoOptionsTests {
    @Test(arguments: [
        ["demo", "--venue", "nope"], ["demo", "--venue", "object"], ["demo", "--mode", "both"],
        ["demo", "--frames", "3"], ["demo", "--frames", "7"], ["demo", "--seed", "x"], ["demo", "--what", "1"],
    ])
    func badOptionsAreUsageErrors(_ words: [String]) throws {
        var args = try Arguments(words, switches: Demo.switches)
        #expect(throws: UsageError.self) { _ = try Demo.run(&args) }
    }

    /// Each command declares its own switches: under the old global list `--no-scan` (and `worker
    /// --once`) took the next word as its value, or failed last on the line.
    @Test func switchesAreDeclaredByTheirCommand() throws {
        var last = try Arguments(["demo", "--no-scan"], switches: Demo.switches)
        let lastSwitch = last.flag("no-scan")
        #expect(lastSwitch)
        var middle = try Arguments(["demo", "--no-scan", "--seed", "3"], switches: Demo.switches)
        let middleSwitch = middle.flag("no-scan")
        #expect(middleSwitch)
        #expect(try middle.int("seed", default: 0) == 3)
        var worker = try Arguments(["worker", "--once", "--postgres", "x"], switches: ["once"])
        let once = worker.flag("once")
        #expect(once && worker.string("postgres") == "x")
        // A switch of another command is a valued option here.
        var other = try Arguments(["demo", "--once", "x"], switches: Demo.switches)
        let value = other.string("once")
        #expect(value == "x")
        #expect(throws: UsageError.self) { try Arguments(["demo", "--seed"], switches: Demo.switches) }
    }

    @Test func helpNamesEveryOption() throws {
        var args = try Arguments(["demo", "--help"], switches: Demo.switches)
        #expect(try Demo.run(&args) == 0)
        for option in ["--venue", "--mode", "--frames", "--seed", "--data", "--out", "--quiet"] {
            #expect(Demo.usage.contains(option))
        }
    }
}
