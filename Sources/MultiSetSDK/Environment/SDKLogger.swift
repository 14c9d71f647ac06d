import Foundation

/// Receives the SDK's log lines (SPEC §3.2). Log-only messages of §19.1 and every gate decision
/// (§9.7) go here.
public struct SDKLogger: Sendable {
    private let sink: @Sendable (String) -> Void

    /// Creates a logger from a line sink.
    public init(_ sink: @escaping @Sendable (String) -> Void) { self.sink = sink }

    /// Logs one line.
    public func log(_ line: String) { sink(line) }

    /// Writes `[MultiSet] <line>` to standard error.
    public static let standardError = SDKLogger { line in
        FileHandle.standardError.write(Data("[MultiSet] \(line)\n".utf8))
    }

    /// Drops every line.
    public static let silent = SDKLogger { _ in }
}
