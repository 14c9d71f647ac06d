/// Errors of ``MapScanner`` and ``ScanUploader``, each with a stable code.
public enum ScanError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `start` while a scan runs, or `finish` without one.
    case notScanning
    /// The folder already holds a dataset.
    case folderInUse(String)
    /// Writing the dataset failed.
    case writeFailed(String)
    /// The scan is not fit for upload (the problems say why).
    case notReady([ScanProblem])
    /// The server refused a request (HTTP status, the server's code and message).
    case server(status: Int, code: String, message: String)
    /// The network failed more often than the retry policy allows.
    case network(String)
    /// The server's answer could not be read.
    case badResponse(String)
    /// The map's build failed on the server (the builder's code and reason).
    case buildFailed(code: String, message: String)

    /// Stable code.
    public var code: String {
        switch self {
        case .notScanning: "SCAN_NOT_SCANNING"
        case .folderInUse: "SCAN_FOLDER_IN_USE"
        case .writeFailed: "SCAN_WRITE_FAILED"
        case .notReady(let p): p.first?.code ?? "SCAN_NOT_READY"
        case .server(_, let code, _): code
        case .network: "SCAN_UPLOAD_NETWORK"
        case .badResponse: "SCAN_UPLOAD_BAD_RESPONSE"
        case .buildFailed(let code, _): code
        }
    }

    /// The reason in words.
    public var description: String {
        switch self {
        case .notScanning: "No scan is running"
        case .folderInUse(let p): "The folder \(p) already holds a scan"
        case .writeFailed(let m): "Writing the scan failed: \(m)"
        case .notReady(let p): p.map(\.description).joined(separator: "; ")
        case .server(let s, let code, let m): "HTTP \(s) \(code): \(m)"
        case .network(let m): "Network error: \(m)"
        case .badResponse(let m): "Unreadable server answer: \(m)"
        case .buildFailed(let code, let m): "The map build failed (\(code)): \(m)"
        }
    }
}
