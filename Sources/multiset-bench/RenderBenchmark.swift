import Foundation
import MultiSetCommandLine
import VPSGeometry
import VPSSimulation

/// `multiset bench render`: frames per second of the software renderer along a walk, single
/// threaded, with and without sensor effects.
enum RenderBenchmark {
    static func run(_ args: inout Arguments) throws -> Int32 {
        if args.flag("help") {
            print(
                """
                usage: multiset bench render [--venue room|corridor|aliasing|object] [--frames 120] [--seed 1]
                                             [--width 640 --height 480]

                Generates the venue, then renders frames along a walk (one thread) and reports milliseconds per
                frame and frames per second, for the bare renderer and with phone-like blur and noise.
                Build with -c release for meaningful numbers.
                """)
            return 0
        }
        let venueName = args.string("venue") ?? "room"
        guard let kind = Venue.Kind(rawValue: venueName) else { throw UsageError("unknown venue '\(venueName)'") }
        let frames = try args.int("frames", default: 120)
        let seed = UInt64(max(0, try args.int("seed", default: 1)))
        let width = try args.int("width", default: 640), height = try args.int("height", default: 480)
        guard frames > 0, width > 0, height > 0 else {
            throw UsageError("--frames, --width and --height must be positive")
        }
        try args.rejectUnknown()

        func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
        var start = now()
        let venue = Venue.generate(kind, seed: seed)
        let generateMs = Double(now() - start) / 1e6
        let trajectory = Trajectory.generate(.walk, in: venue, duration: Double(frames) / 10, seed: seed)
        let focal = 0.78125 * Double(width)
        let camera = Camera(
            fx: focal, fy: focal, cx: Double(width) / 2, cy: Double(height) / 2, width: width, height: height)
        let poses = (0..<frames).map { i in
            CameraPose(CameraAxes.cvPose(fromARKit: trajectory.worldFromCamera(at: Double(i) / 10)).inverse)
        }
        let renderer = Renderer(venue: venue)
        var target = RenderTarget(width: width, height: height)
        var checksum = 0
        start = now()
        for pose in poses {
            renderer.render(camera: camera, camFromWorld: pose, into: &target)
            checksum &+= Int(target.depth(x: width / 2, y: height / 2) ?? 0)
        }
        let bareMs = Double(now() - start) / 1e6 / Double(frames)
        var rng = SplitMix64(seed: seed)
        start = now()
        for pose in poses {
            renderer.render(camera: camera, camFromWorld: pose, into: &target)
            var image = target.image
            SensorEffects.phone.apply(to: &image, using: &rng)
            checksum &+= Int(image.pixels[image.pixels.count / 2])
        }
        let effectsMs = Double(now() - start) / 1e6 / Double(frames)
        print(
            "\(venue.name): generated in \(String(format: "%.0f", generateMs)) ms, \(venue.surfaces.count) surfaces, "
                + "textures \(venue.textureByteCount / 1_000_000) MB")
        print(String(format: "render %d×%d: %.2f ms/frame (%.0f fps)", width, height, bareMs, 1000 / bareMs))
        print(
            String(
                format: "render + RGB image + phone blur/noise: %.2f ms/frame (%.0f fps)  [checksum %d]", effectsMs,
                1000 / effectsMs, checksum))
        return 0
    }
}
