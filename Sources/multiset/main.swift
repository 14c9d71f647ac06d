import Foundation

/// Entry point of the `multiset` command-line tool.
let usage = """
    usage: multiset <command> [options]

    commands:
      demo            what exists so far, end to end (see README)
      serve           the REST API over a data directory (or, with --postgres, one server of a cluster)
      worker          builds uploaded maps for a cluster's servers (--postgres)
      localize        one image against a map, in process
      eval            recall, errors and latency of a capture dataset against a map, or of a COLMAP
                      model leave-one-out (eval --colmap DIR --images DIR --leave-one-out)
      eval-stereo     a map from a stereo pair's left view and depth, the right view localized
      clients         create, list or revoke API clients
      map             build, list, info, export-mesh: maps in the data directory
      mapset create   a map set of several maps in one frame
      bench solvers   run our pose solvers on the benchmark's correspondence sets
      bench minimal   microseconds per minimal solve
      bench mapfile   map file write and load speed
      bench features  ORB extraction, matching and the LSH index on synthetic images
      bench render    frames per second of the simulator's software renderer
      bench localize  end-to-end query latency against a ~100k-point map (JPEG in, pose out, one core)
      synth           render a synthetic venue and write a capture dataset
      synth-cloud     a large synthetic point-cloud map for viewer tests (draws, cannot localize)

    Run `multiset <command> --help` for a command's options.
    """

func runMain() -> Int32 {
    let raw = Array(CommandLine.arguments.dropFirst())
    do {
        var args = try Arguments(raw)
        let words = args.positionals
        switch (words.first, words.dropFirst().first) {
        case ("bench", "solvers"):
            return try SolverBenchmark.run(&args)
        case ("bench", "mapfile"):
            return try MapFileBenchmark.run(&args)
        case ("bench", "minimal"):
            return try MinimalSolverBenchmark.run(&args)
        case ("bench", "features"):
            return try FeatureBenchmark.run(&args)
        case ("bench", "localize"):
            return try LocalizeBenchmark.run(&args)
        case ("bench", "render"):
            return try RenderBenchmark.run(&args)
        case ("localize", _):
            return try LocalizeCommand.localize(&args)
        case ("eval-stereo", _):
            return try EvalStereoCommand.run(&args)
        case ("eval", _):
            return try LocalizeCommand.eval(&args)
        case ("serve", _):
            return try ServeCommand.run(&args)
        case ("worker", _):
            return try WorkerCommand.run(&args)
        case ("clients", _):
            return try ClientsCommand.run(&args)
        case ("map", _):
            return try MapCommand.run(&args)
        case ("mapset", _):
            return try MapSetCommand.run(&args)
        case ("demo", _):
            return try Demo.run(&args)
        case ("synth", _):
            return try SynthCommand.run(&args)
        case ("synth-cloud", _):
            return try SynthCloudCommand.run(&args)
        case (nil, _):
            if args.flag("help") {
                print(usage)
                return 0
            }
            throw UsageError(usage)
        default:
            throw UsageError("unknown command '\(words.joined(separator: " "))'\n\(usage)")
        }
    } catch let error as UsageError {
        FileHandle.standardError.write("multiset: \(error.description)\n".data(using: .utf8)!)
        return 64
    } catch {
        FileHandle.standardError.write("multiset: error: \(error)\n".data(using: .utf8)!)
        return 1
    }
}

exit(runMain())
