import Foundation
import MultiSetCommandLine
import MultiSetDemo

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
      synth           render a synthetic venue and write a capture dataset
      synth-cloud     a large synthetic point-cloud map for viewer tests (draws, cannot localize)

    Run `multiset <command> --help` for a command's options. Benchmarks: `multiset-bench`.
    """

func runMain() -> Int32 {
    let raw = Array(CommandLine.arguments.dropFirst())
    do {
        let words = commandWords(raw)
        /// Parses the command line with the options `switches` of the command that runs it.
        func run(_ switches: Set<String>, _ command: (inout Arguments) throws -> Int32) throws -> Int32 {
            var args = try Arguments(raw, switches: switches)
            return try command(&args)
        }
        switch words.first {
        case "localize": return try run(LocalizeCommand.switches, LocalizeCommand.localize)
        case "eval-stereo": return try run(EvalStereoCommand.switches, EvalStereoCommand.run)
        case "eval": return try run(LocalizeCommand.switches, LocalizeCommand.eval)
        case "serve": return try run(ServeCommand.switches, ServeCommand.run)
        case "worker": return try run(WorkerCommand.switches, WorkerCommand.run)
        case "clients": return try run(ClientsCommand.switches, ClientsCommand.run)
        case "map": return try run(MapCommand.switches, MapCommand.run)
        case "mapset": return try run(MapSetCommand.switches, MapSetCommand.run)
        case "demo": return try run(Demo.switches, Demo.run)
        case "synth": return try run(SynthCommand.switches, SynthCommand.run)
        case "synth-cloud": return try run(SynthCloudCommand.switches, SynthCloudCommand.run)
        case "bench":
            throw UsageError(
                "benchmarks moved to their own tool: multiset-bench \(words.dropFirst().joined(separator: " "))")
        case nil:
            var args = try Arguments(raw, switches: [])
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
