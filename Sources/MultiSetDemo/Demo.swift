import Foundation
import MultiSetCommandLine
import MultiSetSDK
import VPSGeometry
import VPSImaging
import VPSLocalizer
import VPSServer
import VPSSimulation

/// `multiset demo`: the whole loop of the project on one machine.
///
/// A synthetic venue is scanned with exact poses and built into a map in the data directory (or the
/// map of an earlier run is reused); the server starts in process on a free loopback port; an API
/// client is created; then a simulated phone walks through the venue while the sample app's AR
/// localization screen model drives the real SDK over HTTP. The timeline shows what the screen shows
/// (overlays, status card, toasts, alerts) and every answer's error against the truth: multi-frame
/// auto-localization, background refinements, a tracking break and its recovery, and — in the
/// aliasing venue — a wrong match the pose-consistency gate discards. Time is virtual (timers run
/// instantly) but every request goes over the socket; a top-down PNG per act shows map points, the
/// true path, the AR path as the anchor places it, and the server's answers.
public enum Demo {
    /// The options of this command that take no value.
    public static let switches: Set<String> = ["no-scan", "quiet"]

    static let usage = """
        usage: multiset demo [--venue room|corridor|aliasing] [--mode multi|single] [--frames 4-6] [--seed N]
                             [--data DIR] [--out DIR] [--quiet] [--no-scan] [--scan-drift PCT]

        Runs the sample app's AR localization screen against the in-process server with a simulated phone.
        With the room venue, the phone first scans the room through the SDK's MapScanner, uploads the scan,
        the server builds it, and two walks localize in the scanned map (single-frame, then multi-frame;
        recall at 5 cm / 1° printed; --scan-drift sets the scan's AR drift in percent of the distance, default
        0.1, with 0.5°/min of yaw drift per percent; --no-scan skips the act). Then act 1 walks through --venue (default
        room), act 2 through the aliasing venue (two identical rooms,
        only one of them mapped). Maps are built once into DIR (default .multiset, the same data directory
        `multiset serve` uses) and reused. Prints the screen's timeline (not with --quiet) and a summary;
        writes OUT/demo-<venue>.png (default OUT: .multiset/demo).
        """

    public static func run(_ args: inout Arguments) throws -> Int32 {
        if args.flag("help") {
            print(usage)
            return 0
        }
        let venueName = args.string("venue") ?? "room"
        let modeName = args.string("mode") ?? "multi"
        let frames = try args.int("frames", default: 4)
        let seed = UInt64(try args.int("seed", default: 7))
        let dataPath = args.string("data") ?? ".multiset"
        let out = URL(fileURLWithPath: args.string("out") ?? ".multiset/demo", isDirectory: true)
        let quiet = args.flag("quiet")
        let noScan = args.flag("no-scan")
        let scanDrift = try args.double("scan-drift", default: 0.1)
        try args.rejectUnknown()
        guard let kind = Venue.Kind(rawValue: venueName), kind != .object else {
            throw UsageError("--venue takes room, corridor or aliasing, got '\(venueName)'")
        }
        guard modeName == "multi" || modeName == "single" else {
            throw UsageError("--mode takes multi or single, got '\(modeName)'")
        }
        guard (4...6).contains(frames) else { throw UsageError("--frames takes 4…6") }
        guard (0...5).contains(scanDrift) else { throw UsageError("--scan-drift takes 0…5 (percent)") }
        let options = Options(
            kind: kind, mode: modeName == "multi" ? .multiFrame : .singleFrame, frames: frames, seed: seed,
            dataPath: dataPath, out: out, echo: !quiet, scan: !noScan, scanDrift: scanDrift)
        let summaries = try run(options)
        return summaries.isEmpty ? 1 : 0
    }

    struct Options {
        var kind: Venue.Kind
        var mode: LocalizationMode
        var frames: Int
        var seed: UInt64
        var dataPath: String
        var out: URL
        var echo: Bool
        /// Runs the scan act first (room venue only).
        var scan = true
        /// The scan's AR drift, percent of the distance walked (yaw drift 0.5°/min per percent).
        var scanDrift = 0.1
    }

    /// Runs every act; returns their summaries (empty when sign-in failed).
    static func run(_ o: Options) throws -> [DemoAct.Summary] {
        let started = DispatchTime.now().uptimeNanoseconds
        func elapsed() -> String {
            String(format: "%5.1f s", Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
        }
        func say(_ line: String) { print(line) }
        say(
            "MultiSet VPS demo (seed \(o.seed)): a phone walks through a synthetic venue; the sample app's AR screen drives the SDK against the server."
        )
        let data = try DataDirectory(path: o.dataPath, requireOwnership: true)
        try FileManager.default.createDirectory(at: o.out, withIntermediateDirectories: true)
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("multiset-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }

        var acts: [(DemoAct, String)] = []
        if o.kind != .aliasing {
            let venue = Venue.generate(o.kind, seed: o.seed)
            say("[\(elapsed())] venue: \(venue.name), \(venue.surfaces.count) surfaces")
            let map = try DemoVenueMap.prepare(
                venue: venue, seed: o.seed, data: data, onlyRoomA: false, log: { say("[\(elapsed())] \($0)") })
            acts.append((try mainAct(o, venue: venue, code: map.code, points: map.points), map.code))
        }
        let twin = Venue.generate(.aliasing, seed: o.seed)
        say("[\(elapsed())] venue: \(twin.name), two identical rooms; only room A is mapped")
        let twinMap = try DemoVenueMap.prepare(
            venue: twin, seed: o.seed, data: data, onlyRoomA: true, log: { say("[\(elapsed())] \($0)") })

        let server = try DemoServer.start(data: data)
        defer {
            server.stop()
            // The demo's client is single-use.
            try? data.store.setClientDisabled(id: server.clientID, true)
        }
        say("[\(elapsed())] server: \(server.baseURL) (in process), client \(server.clientID)")
        var scanActs = 0
        if o.scan && o.kind == .room {
            let venue = Venue.generate(.room, seed: o.seed)
            say("")
            say(
                "[\(elapsed())] Scan: the phone scans \(venue.name) through the SDK's MapScanner, uploads it, the server builds the map"
            )
            if let scan = try DemoScanAct.scan(
                venue: venue, seed: o.seed, drift: o.scanDrift / 100, server: server, data: data,
                folder: cache.appendingPathComponent("scan"), say: say)
            {
                acts.insert(contentsOf: scanWalks(o, venue: venue, scan: scan).map { ($0, scan.code) }, at: 0)
                scanActs = 2
            }
        }
        if let twinAct = try aliasingAct(o, venue: twin, code: twinMap.code, points: twinMap.points) {
            acts.append((twinAct, twinMap.code))
        } else {
            say(
                "[\(elapsed())] aliasing venue: no walk from room A into room B and back found for this seed; act skipped"
            )
        }

        var summaries: [DemoAct.Summary] = []
        for (index, (act, _)) in acts.enumerated() {
            var config = act.config
            config.clientId = server.clientID
            config.clientSecret = server.secret
            config.baseURL = server.baseURL
            let configured = DemoAct(
                title: act.title, venue: act.venue, points: act.points, config: config, simulator: act.simulator,
                script: act.script, echo: o.echo)
            configured.venueFromMap = act.venueFromMap
            say("")
            say("Act \(index + 1): \(act.title)")
            if o.echo { say("   time  who    what") }
            var summary = configured.run(cacheDirectory: cache.appendingPathComponent("act\(index + 1)"))
            guard summary.queries > 0 || !summary.timeline.isEmpty else { continue }
            let png = o.out.appendingPathComponent(
                index < scanActs
                    ? "demo-scan-\(index + 1).png" : "demo-\(act.venue.kind?.rawValue ?? "venue").png")
            try PNG.write(picture(act: act, summary: summary), toFile: png.path)
            summary.png = png.path
            summaries.append(summary)
        }
        say("")
        for s in summaries { say(describe(s)) }
        for s in summaries.prefix(scanActs) { say(describeRecall(s)) }
        let answers = summaries.flatMap(\.answers)
        let wrongAccepted = answers.filter { $0.accepted && $0.error.meters > 0.5 }.count
        let wrongRejected = answers.filter { !$0.accepted && $0.error.meters > 0.5 }.count
        say(
            "[\(elapsed())] summary: \(answers.filter(\.accepted).count) fixes accepted, \(answers.filter { !$0.accepted }.count) discarded by the gate (\(wrongRejected) of them wrong), wrong answers applied: \(wrongAccepted == 0 ? "none" : "\(wrongAccepted)")"
        )
        say("top-down views (grey: map points, blue: true path, orange: AR path as the anchor places it,")
        say("green/red circles: the server's accepted/discarded answers):")
        for s in summaries { say("  \(s.png)") }
        return summaries
    }

    /// The scanned map's acts: the same walk localized single-frame, then multi-frame, with `Localize`
    /// tapped every 3 s besides the automatic and background runs.
    static func scanWalks(_ o: Options, venue: Venue, scan: DemoScanAct.Scan) -> [DemoAct] {
        let walk = Trajectory.generate(.walk, in: venue, duration: 36, seed: o.seed &+ 50)
        return [LocalizationMode.singleFrame, .multiFrame].map { mode in
            let session = ARSessionConfiguration(
                camera: DemoVenueMap.camera, frameInterval: 0.1, initializationDuration: 1.0)
            let simulator = ARSessionSimulator(
                venue: venue, trajectory: walk, configuration: session, seed: o.seed &+ 51)
            var script = DemoAct.Script(closeAt: walk.duration - 1)
            script.localizeTaps = Array(stride(from: 3.0, to: walk.duration - 2, by: 3))
            var c = config(o, code: scan.code)
            c.localizationMode = mode
            let name = mode == .singleFrame ? "single-frame" : "multi-frame"
            let act = DemoAct(
                title: "\(venue.name), scanned map: \(name) localization on a walk", venue: venue, points: scan.points,
                config: c, simulator: simulator, script: script, echo: o.echo)
            act.venueFromMap = scan.venueFromMap
            return act
        }
    }

    /// Recall at (5 cm, 1°) of an act's queries, and the wrong answers applied.
    static func describeRecall(_ s: DemoAct.Summary) -> String {
        let accepted = s.answers.filter(\.accepted)
        let good = accepted.filter { $0.error.meters <= 0.05 && $0.error.degrees <= 1 }.count
        let wrong = accepted.filter { $0.error.meters > 0.5 || $0.error.degrees > 5 }.count
        let recall = s.queries > 0 ? Double(good) / Double(s.queries) : 0
        let outside = accepted.filter { $0.error.meters > 0.05 || $0.error.degrees > 1 }
            .map { String(format: "%.1f cm / %.2f°", $0.error.meters * 100, $0.error.degrees) }
        let listed = outside.isEmpty ? "" : " (" + outside.joined(separator: ", ") + ")"
        return String(
            format:
                "%@: recall at (5 cm, 1°) %.2f (%d of %d queries), %d accepted outside it%@, %d discarded, wrong answers applied: %d",
            s.title, recall, good, s.queries, outside.count, listed, s.answers.count - accepted.count, wrong)
    }

    /// Act 1: auto-localization, background refinements, a tracking break and recovery, a manual run,
    /// the mesh toggle, close.
    static func mainAct(_ o: Options, venue: Venue, code: String, points: [Vec3]) throws -> DemoAct {
        var session = ARSessionConfiguration(
            camera: DemoVenueMap.camera, frameInterval: 0.1, initializationDuration: 1.0)
        session.trackingBreaks = [
            .init(start: 23, duration: 2.5, state: .limited(.excessiveMotion), jumpDistance: 0.5, jumpYawDegrees: 5)
        ]
        let walk = Trajectory.generate(.walk, in: venue, duration: 62, seed: o.seed &+ 1)
        let simulator = ARSessionSimulator(venue: venue, trajectory: walk, configuration: session, seed: o.seed &+ 2)
        var script = DemoAct.Script(closeAt: 58)
        script.localizeTaps = [41]
        script.meshToggleTaps = [50, 52]
        return DemoAct(
            title: "\(venue.name): auto-localization, background refinements, a tracking break", venue: venue,
            points: points, config: config(o, code: code), simulator: simulator, script: script, echo: o.echo)
    }

    /// Act 2: the aliasing venue. The phone starts in room A (mapped), walks into room B (its unmapped
    /// twin), where the user taps Localize: the server answers with room A's pose, the gate discards it.
    static func aliasingAct(_ o: Options, venue: Venue, code: String, points: [Vec3]) throws -> DemoAct? {
        guard let (walk, _, back) = aliasingWalk(venue: venue, seed: o.seed) else { return nil }
        let session = ARSessionConfiguration(
            camera: DemoVenueMap.camera, frameInterval: 0.1, initializationDuration: 1.0)
        let simulator = ARSessionSimulator(venue: venue, trajectory: walk, configuration: session, seed: o.seed &+ 3)
        var script = DemoAct.Script(closeAt: min(walk.duration - 0.5, back + 9))
        script.localizeWhen = { $0.trueWorldFromCamera.translation.x > 1.2 }
        script.localizeWhenReason = "in room B, the unmapped twin of room A"
        script.keepTrying = { $0.trueWorldFromCamera.translation.x > 0.5 }
        var c = config(o, code: code)
        // The venue is known to have look-alike places: a challenger needs 5× the viewpoints.
        c.mapAliasingRisk = [code: 5]
        return DemoAct(
            title: "\(venue.name): a wrong match in the twin room", venue: venue, points: points, config: c,
            simulator: simulator, script: script, echo: o.echo)
    }

    static func config(_ o: Options, code: String) -> MultiSetConfig {
        var c = MultiSetConfig.default(mapCode: code)
        c.localizationMode = o.mode
        c.numberOfFrames = o.frames
        c.bgLocalizationDurationSeconds = 10
        return c
    }

    /// A walk of the aliasing venue that starts in room A, enters room B and comes back.
    static func aliasingWalk(venue: Venue, seed: UInt64) -> (Trajectory, enterB: Double, backInA: Double)? {
        func all(_ t: Trajectory, _ range: ClosedRange<Double>, _ test: (Double) -> Bool) -> Bool {
            stride(from: range.lowerBound, through: range.upperBound, by: 0.5).allSatisfy {
                test(t.worldFromCamera(at: $0).translation.x)
            }
        }
        for k in 0..<300 {
            let t = Trajectory.generate(.walk, in: venue, duration: 60, seed: seed &+ 100 &+ UInt64(k))
            guard all(t, 0...9, { $0 < -0.8 }) else { continue }
            guard
                let enter = stride(from: 12.0, through: 30, by: 0.5).first(where: { s in
                    all(t, s...(s + 5), { $0 > 1.0 })
                }),
                let back = stride(from: enter + 8, through: 48, by: 0.5).first(where: { s in
                    all(t, s...(s + 8), { $0 < -0.8 })
                })
            else { continue }
            return (t, enter, back)
        }
        return nil
    }

    static func describe(_ s: DemoAct.Summary) -> String {
        let accepted = s.answers.filter(\.accepted)
        // Medians as the evaluations take them (the mean of the middle two of an even count).
        let median = EvaluationSummary.median(accepted.map(\.error.meters)) ?? .nan
        let placement = s.placementErrors.sorted()
        let p50 = EvaluationSummary.median(placement) ?? .nan
        let p95 = placement.isEmpty ? Double.nan : placement[min(placement.count - 1, placement.count * 95 / 100)]
        let lat = EvaluationSummary.median(s.latencies) ?? .nan
        return String(
            format:
                "%@: %d queries (median %.0f ms on the wire), %d fixes accepted (median answer error %.1f cm), %d discarded, %d failure(s) reported; AR content placed within %.1f cm (median), %.1f cm (95%%); %.0f s of walk in %.1f s",
            s.title, s.queries, lat, accepted.count, median * 100, s.answers.count - accepted.count, s.failures,
            p50 * 100, p95 * 100, s.virtualSeconds, s.realSeconds)
    }

    /// Map points (grey), the true path (blue), the AR path as the anchor places it (orange), the
    /// server's answers (green: accepted, red: discarded), seen from above.
    static func picture(act: DemoAct, summary: DemoAct.Summary) -> RGBImage {
        let b = act.venue.bounds
        let scale = 80.0, margin = 20.0
        let width = Int((b.max.x - b.min.x) * scale + 2 * margin),
            height = Int((b.max.z - b.min.z) * scale + 2 * margin)
        var image = RGBImage(width: width, height: height, fill: (255, 255, 255))
        func px(_ p: Vec3) -> (x: Int, y: Int) {
            (Int((p.x - b.min.x) * scale + margin), Int((p.z - b.min.z) * scale + margin))
        }
        for room in act.venue.rooms {
            let a = px(room.min), c = px(room.max)
            image.drawRectangle(x: a.x, y: a.y, width: c.x - a.x, height: c.y - a.y, color: .black, thickness: 2)
        }
        for p in act.points { image.fillDisc(center: px(p), radius: 1.2, color: RGB(r: 170, g: 170, b: 170)) }
        image.drawPolyline(summary.truePath.map(px), color: .blue, thickness: 2, closed: false)
        for segment in summary.arPath where segment.count > 1 {
            image.drawPolyline(segment.map(px), color: RGB(r: 255, g: 140, b: 0), thickness: 1, closed: false)
        }
        for a in summary.answers {
            image.drawCircle(center: px(a.position), radius: 7, color: a.accepted ? .green : .red, thickness: 2)
        }
        return image
    }
}
