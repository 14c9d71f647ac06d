/// A tiny command-line parser: positional words, `--flag value`, and boolean `--switch`es.
///
/// Hand-written because no outside packages are available; errors exit with status 64 (usage).
struct Arguments {
    private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var switches: Set<String> = []
    private var consumed: Set<String> = []

    /// Parses `args` (without the program name); `booleanFlags` take no value.
    init(
        _ args: [String],
        booleanFlags: Set<String> = [
            "help", "json", "verbose", "use-truth", "leave-one-out", "no-tighten", "no-scale-weights", "quiet",
            "no-guided", "no-point-weights", "admin",
        ]
    ) throws(UsageError) {
        var i = 0
        while i < args.count {
            let a = args[i]
            if a.hasPrefix("--") {
                let name = String(a.dropFirst(2))
                if let eq = name.firstIndex(of: "=") {
                    values[String(name[..<eq]), default: []].append(String(name[name.index(after: eq)...]))
                } else if booleanFlags.contains(name) {
                    switches.insert(name)
                } else {
                    guard i + 1 < args.count else { throw UsageError("missing value for --\(name)") }
                    values[name, default: []].append(args[i + 1])
                    i += 1
                }
            } else if a == "-h" {
                switches.insert("help")
            } else {
                positionals.append(a)
            }
            i += 1
        }
    }

    /// True when `--name` was given.
    mutating func flag(_ name: String) -> Bool {
        consumed.insert(name)
        return switches.contains(name)
    }

    /// The last value of `--name`, if any.
    mutating func string(_ name: String) -> String? {
        consumed.insert(name)
        return values[name]?.last
    }

    /// All values of a repeatable `--name`.
    mutating func strings(_ name: String) -> [String] {
        consumed.insert(name)
        return values[name] ?? []
    }

    /// `--name` as an integer, or `defaultValue` when absent.
    mutating func int(_ name: String, default defaultValue: Int) throws(UsageError) -> Int {
        guard let s = string(name) else { return defaultValue }
        guard let v = Int(s) else { throw UsageError("--\(name) expects an integer, got '\(s)'") }
        return v
    }

    /// `--name` as a finite number, or `defaultValue` when absent.
    mutating func double(_ name: String, default defaultValue: Double) throws(UsageError) -> Double {
        guard let s = string(name) else { return defaultValue }
        guard let v = Double(s), v.isFinite else { throw UsageError("--\(name) expects a number, got '\(s)'") }
        return v
    }

    /// Fails on any flag that no command asked for.
    func rejectUnknown() throws(UsageError) {
        let unknown = Set(values.keys).union(switches).subtracting(consumed).sorted()
        if let first = unknown.first { throw UsageError("unknown option --\(first)") }
    }
}

/// A command-line usage error: printed to stderr, exit status 64.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
