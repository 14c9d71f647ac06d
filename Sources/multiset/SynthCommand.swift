import Foundation
import MultiSetCommandLine
import VPSCapture
import VPSGeometry
import VPSSimulation

/// `multiset synth`: renders a synthetic venue along a trajectory and writes a capture dataset
/// (docs/FORMATS.md, format v1) with ground truth.
enum SynthCommand {
    /// The options of this command that take no value.
    static let switches: Set<String> = []

    static let usage = """
        usage: multiset synth --venue room|corridor|aliasing|object --frames N --seed S --out DIR
                              [--trajectory scan|walk|lookAround] [--width 640 --height 480]
                              [--interval SECONDS] [--quality 1-100] [--drift FRACTION]
                              [--yaw-drift DEG_PER_MIN] [--pose-noise-mm MM] [--sensor ideal|phone]
                              [--break START:DURATION]... [--reset SECONDS]... [--background START:DURATION]...

        Generates the venue and an AR session walking through it, renders N frames and writes DIR/captures.json
        and DIR/images/frame_NNNNNN.jpg. Everything is determined by --seed (the venue) and --path-seed (the
        trajectory and the session's noise; default: --seed).

          --venue         room (6 × 5 m), corridor (20 × 2 m), aliasing (two identical rooms), object (a box on a table)
          --trajectory    scan (default: full turns at stations over every room, for map building), walk (~1 m/s),
                          lookAround (standing, panning)
          --frames        number of frames to write (required, ≥ 1)
          --interval      seconds between frames; default: the whole scan spread over N frames, 0.2 s otherwise
          --width/height  image size in pixels (default 640 × 480; focal length 0.78 × width)
          --quality       JPEG quality (default 90)
          --drift         AR translation drift per metre walked (default 0.01)
          --yaw-drift     AR yaw drift in degrees per minute (default 0.5)
          --pose-noise-mm AR per-frame position noise (default 2)
          --sensor        image effects: phone (default: slight blur and noise) or ideal
          --break         a tracking break: limited tracking from START for DURATION seconds, then a relocalization jump
          --reset         a world-origin reset at SECONDS
          --background    the app in the background from START for DURATION seconds (no frames, then a new world frame)
        """

    static func run(_ args: inout Arguments) throws -> Int32 {
        if args.flag("help") {
            print(usage)
            return 0
        }
        // Validate everything before any work.
        guard let venueName = args.string("venue") else { throw UsageError("synth: --venue is required\n\(usage)") }
        guard let kind = Venue.Kind(rawValue: venueName) else {
            throw UsageError("synth: unknown venue '\(venueName)' (room, corridor, aliasing, object)")
        }
        let trajectoryName = args.string("trajectory") ?? "scan"
        guard let trajectoryKind = Trajectory.Kind(rawValue: trajectoryName) else {
            throw UsageError("synth: unknown trajectory '\(trajectoryName)' (scan, walk, lookAround)")
        }
        guard args.string("frames") != nil else { throw UsageError("synth: --frames is required\n\(usage)") }
        let frames = try args.int("frames", default: 0)
        guard frames >= 1 else { throw UsageError("synth: --frames must be at least 1") }
        guard let seedText = args.string("seed") else { throw UsageError("synth: --seed is required\n\(usage)") }
        guard let seed = UInt64(seedText) else { throw UsageError("synth: --seed expects a non-negative integer") }
        // `--path-seed`: another trajectory and session through the same venue (default: --seed).
        let pathSeed =
            try args.string("path-seed").map { text throws(UsageError) -> UInt64 in
                guard let v = UInt64(text) else {
                    throw UsageError("synth: --path-seed expects a non-negative integer")
                }
                return v
            } ?? seed
        guard let out = args.string("out") else { throw UsageError("synth: --out is required\n\(usage)") }
        let width = try args.int("width", default: 640), height = try args.int("height", default: 480)
        guard (16...8192).contains(width), (16...8192).contains(height) else {
            throw UsageError("synth: --width and --height must be within 16...8192")
        }
        let quality = try args.int("quality", default: 90)
        guard (1...100).contains(quality) else { throw UsageError("synth: --quality must be within 1...100") }
        let interval = try double(&args, "interval")
        if let interval, !(interval > 0) { throw UsageError("synth: --interval must be positive") }
        let drift = try double(&args, "drift") ?? 0.01
        let yawDrift = try double(&args, "yaw-drift") ?? 0.5
        let poseNoise = try double(&args, "pose-noise-mm") ?? 2
        guard drift >= 0, yawDrift >= 0, poseNoise >= 0 else {
            throw UsageError("synth: --drift, --yaw-drift and --pose-noise-mm must not be negative")
        }
        let sensorName = args.string("sensor") ?? "phone"
        guard ["phone", "ideal"].contains(sensorName) else { throw UsageError("synth: --sensor is phone or ideal") }
        let breaks = try args.strings("break").map { try span($0, "break") }
        let resets = try args.strings("reset").map { text in
            guard let t = Double(text), t >= 0 else {
                throw UsageError("synth: --reset expects seconds, got '\(text)'")
            }
            return t
        }
        let backgrounds = try args.strings("background").map { try span($0, "background") }
        try args.rejectUnknown()
        let directory = URL(fileURLWithPath: out)
        if let existing = try? FileManager.default.contentsOfDirectory(atPath: out), !existing.isEmpty {
            throw UsageError("synth: --out \(out) exists and is not empty")
        }

        let venue = Venue.generate(kind, seed: seed)
        let background = backgrounds.reduce(0) { $0 + $1.1 }
        let trajectory: Trajectory
        let frameInterval: Double
        switch trajectoryKind {
        case .scan:
            trajectory = Trajectory.generate(.scan, in: venue, seed: pathSeed)
            frameInterval = interval ?? trajectory.duration / Double(max(frames - 1, 1))
        case .walk, .lookAround:
            frameInterval = interval ?? 0.2
            trajectory = Trajectory.generate(
                trajectoryKind, in: venue, duration: Double(frames - 1) * frameInterval + background, seed: pathSeed)
        }
        let focal = 0.78125 * Double(width)
        var configuration = ARSessionConfiguration(
            camera: Camera(
                fx: focal, fy: focal, cx: Double(width) / 2, cy: Double(height) / 2, width: width, height: height),
            frameInterval: frameInterval, translationDriftPerMetre: drift, yawDriftDegreesPerMinute: yawDrift,
            positionNoise: poseNoise / 1000,
            trackingBreaks: breaks.map { ARSessionConfiguration.TrackingBreak(start: $0.0, duration: $0.1) },
            worldOriginResets: resets,
            backgroundPeriods: backgrounds.map { ARSessionConfiguration.BackgroundPeriod(start: $0.0, duration: $0.1) })
        if sensorName == "phone" { configuration.sensor = .phone }
        var session = ARSessionSimulator(
            venue: venue, trajectory: trajectory, configuration: configuration, seed: pathSeed)
        var writer = try CaptureWriter(
            directory: directory,
            device: CaptureDataset.Device(model: "simulator", name: "\(venue.name), \(trajectoryKind.rawValue)"),
            jpegQuality: quality)

        let tty = isatty(STDOUT_FILENO) == 1
        var written: [SimulatedFrame] = []
        while written.count < frames, let frame = session.next() {
            try writer.append(frame)
            var kept = frame
            kept.image = nil  // only poses are needed for the summary
            written.append(kept)
            if tty { FileHandle.standardOutput.write(Data("\rsynth: frame \(written.count)/\(frames)".utf8)) }
        }
        if tty { FileHandle.standardOutput.write(Data("\n".utf8)) }
        try writer.finish()
        print(summary(written, venue: venue, trajectory: trajectory, directory: directory, requested: frames))
        return 0
    }

    /// `--name` as a number, or nil when absent.
    static func double(_ args: inout Arguments, _ name: String) throws(UsageError) -> Double? {
        guard let text = args.string(name) else { return nil }
        guard let value = Double(text), value.isFinite else {
            throw UsageError("--\(name) expects a number, got '\(text)'")
        }
        return value
    }

    /// `START:DURATION` in seconds.
    static func span(_ text: String, _ name: String) throws(UsageError) -> (Double, Double) {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let start = Double(parts[0]), let duration = Double(parts[1]), start >= 0, duration > 0
        else { throw UsageError("synth: --\(name) expects START:DURATION in seconds, got '\(text)'") }
        return (start, duration)
    }

    /// What was written, with the AR session's final drift against the truth.
    static func summary(
        _ frames: [SimulatedFrame], venue: Venue, trajectory: Trajectory, directory: URL, requested: Int
    ) -> String {
        guard let first = frames.first, let last = frames.last else { return "synth: no frames" }
        var states: [String: Int] = [:]
        for f in frames { states[f.trackingState.captureName, default: 0] += 1 }
        let worlds = Set(frames.map(\.worldID)).count
        // Drift of the last world frame: its first frame's alignment applied to its last frame.
        let start = frames.first { $0.worldID == last.worldID } ?? first
        let predicted = start.venueFromSession * last.arWorldFromCamera
        let error = predicted.error(to: last.trueWorldFromCamera)
        var lines = [
            "wrote \(frames.count) frames to \(directory.path)/captures.json"
                + (frames.count < requested ? " (the trajectory ended before \(requested))" : ""),
            String(
                format: "  %@, %@ trajectory, %d×%d, %.1f s simulated, %.1f m travelled", venue.name,
                trajectory.kind.rawValue, first.camera.width, first.camera.height, last.timestamp - first.timestamp,
                trajectory.distanceTravelled(at: last.timestamp) - trajectory.distanceTravelled(at: first.timestamp)),
            "  tracking: "
                + ["normal", "limited", "notAvailable"].map { "\(states[$0, default: 0]) \($0)" }.joined(
                    separator: ", ")
                + ", \(worlds) world frame\(worlds == 1 ? "" : "s")",
            String(
                format: "  AR drift at the last frame: %.3f m, %.2f° (since its world frame started)",
                error.translation,
                degrees(error.rotation)),
        ]
        if venue.symmetry != nil { lines.append("  note: the two rooms are identical (aliasing venue)") }
        return lines.joined(separator: "\n")
    }
}
