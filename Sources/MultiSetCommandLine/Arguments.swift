/// A tiny command-line parser: positional words, `--flag value`, and boolean `--switch`es.
///
/// Each command declares its own switches (the options that take no value); every other `--name`
/// takes the next word (or `--name=value`). Hand-written because no outside packages are
/// available; errors exit with status 64 (usage).
public struct Arguments {
    /// The words that are not options or option values, in order (the command words first).
    public private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var switches: Set<String> = []
    private var consumed: Set<String> = []

    /// Parses `args` (without the program name); `switches` (and `help`, always) take no value.
    public init(_ args: [String], switches declared: Set<String>) throws(UsageError) {
        let booleanFlags = declared.union(["help"])
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
    public mutating func flag(_ name: String) -> Bool {
        consumed.insert(name)
        return switches.contains(name)
    }

    /// The last value of `--name`, if any.
    public mutating func string(_ name: String) -> String? {
        consumed.insert(name)
        return values[name]?.last
    }

    /// All values of a repeatable `--name`.
    public mutating func strings(_ name: String) -> [String] {
        consumed.insert(name)
        return values[name] ?? []
    }

    /// `--name` as an integer, or `defaultValue` when absent.
    public mutating func int(_ name: String, default defaultValue: Int) throws(UsageError) -> Int {
        guard let s = string(name) else { return defaultValue }
        guard let v = Int(s) else { throw UsageError("--\(name) expects an integer, got '\(s)'") }
        return v
    }

    /// `--name` as a finite number, or `defaultValue` when absent.
    public mutating func double(_ name: String, default defaultValue: Double) throws(UsageError) -> Double {
        guard let s = string(name) else { return defaultValue }
        guard let v = Double(s), v.isFinite else { throw UsageError("--\(name) expects a number, got '\(s)'") }
        return v
    }

    /// Fails on any flag that no command asked for.
    public func rejectUnknown() throws(UsageError) {
        let unknown = Set(values.keys).union(switches).subtracting(consumed).sorted()
        if let first = unknown.first { throw UsageError("unknown option --\(first)") }
    }
}

/// A command-line usage error: printed to stderr, exit status 64.
public struct UsageError: Error, CustomStringConvertible {
    /// The message.
    public let description: String
    /// A usage error saying `message`.
    public init(_ message: String) { description = message }
}

/// A command's failure on its input (a missing file, a malformed model): printed to stderr, exit 1.
public struct BenchError: Error, CustomStringConvertible {
    /// The message.
    public let description: String
    /// A failure saying `d`.
    public init(_ d: String) { description = d }
}

/// The leading words of a command line (before its first option): the command and sub-command.
public func commandWords(_ args: [String]) -> [String] { Array(args.prefix { !$0.hasPrefix("-") }) }
