import Foundation
import MultiSetCommandLine

/// Entry point of `multiset-bench`: the benchmarks behind `make bench`, kept out of the shipped
/// `multiset` (they link the test-support library for their synthetic scenes).
let usage = """
    usage: multiset-bench <benchmark> [options]

    benchmarks:
      solvers   run our pose solvers on the benchmark's correspondence sets (bench/solvers/generate.py)
      minimal   microseconds per minimal solve
      mapfile   map file write and load speed
      features  ORB extraction, matching and the LSH index on synthetic images
      render    frames per second of the simulator's software renderer
      patches   keypoint alignment to reference patches: speed and sub-pixel error on known warps
      localize  end-to-end query latency against a ~100k-point map (JPEG in, pose out, one core)

    Run `multiset-bench <benchmark> --help` for its options; `make bench` runs them all beside their peers.
    """

func runMain() -> Int32 {
    // `multiset-bench solvers …`; `multiset-bench bench solvers …` (the old spelling) works too.
    var raw = Array(CommandLine.arguments.dropFirst())
    if raw.first == "bench" { raw.removeFirst() }
    do {
        var args = try Arguments(["bench"] + raw, switches: [])
        switch commandWords(raw).first {
        case "solvers": return try SolverBenchmark.run(&args)
        case "mapfile": return try MapFileBenchmark.run(&args)
        case "minimal": return try MinimalSolverBenchmark.run(&args)
        case "features": return try FeatureBenchmark.run(&args)
        case "localize": return try LocalizeBenchmark.run(&args)
        case "render": return try RenderBenchmark.run(&args)
        case "patches": return try PatchBenchmark.run(&args)
        case nil:
            if args.flag("help") {
                print(usage)
                return 0
            }
            throw UsageError(usage)
        case let other?:
            throw UsageError("unknown benchmark '\(other)'\n\(usage)")
        }
    } catch let error as UsageError {
        FileHandle.standardError.write(Data("multiset-bench: \(error.description)\n".utf8))
        return 64
    } catch {
        FileHandle.standardError.write(Data("multiset-bench: error: \(error)\n".utf8))
        return 1
    }
}

exit(runMain())
