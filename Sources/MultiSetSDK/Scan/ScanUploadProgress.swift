/// Where an upload of a scan stands (what the scan screen's progress bar shows).
public enum ScanUploadProgress: Sendable, Equatable {
    /// Sending the images: files and bytes the server holds so far, of the total.
    case uploading(filesDone: Int, filesTotal: Int, bytesDone: Int, bytesTotal: Int)
    /// The network dropped; retrying after `seconds` (attempt `attempt`).
    case waitingForNetwork(attempt: Int, seconds: Double)
    /// The server builds the map: its stage and percent (0–100).
    case building(stage: String, percent: Int)
    /// The map is active.
    case active(mapCode: String)

    /// Overall fraction for a progress bar: the upload is the first half, the build the second.
    public var fraction: Double {
        switch self {
        case .uploading(let f, let t, let b, let bt):
            bt > 0 ? 0.5 * Double(b) / Double(bt) : (t > 0 ? 0.5 * Double(f) / Double(t) : 0)
        case .waitingForNetwork: 0
        case .building(_, let p): 0.5 + 0.005 * Double(min(100, max(0, p)))
        case .active: 1
        }
    }
}

/// A finished upload: the map that was built.
public struct ScanUploadOutcome: Sendable, Equatable {
    /// The upload session's id (resume with it after an app restart).
    public var uploadId: String
    /// The new map's code and id.
    public var mapCode: String, mapId: String
    /// Requests that failed on the network and were retried.
    public var retries: Int

    /// An outcome.
    public init(uploadId: String, mapCode: String, mapId: String, retries: Int) {
        self.uploadId = uploadId
        self.mapCode = mapCode
        self.mapId = mapId
        self.retries = retries
    }
}

/// How ``ScanUploader`` retries after a network failure: exponential back-off from `firstDelay`
/// seconds, at most `maxDelay`, giving up after `maxConsecutiveFailures` failures in a row.
public struct ScanRetryPolicy: Sendable, Equatable {
    /// Seconds before the first retry; doubles each time.
    public var firstDelay = 1.0
    /// Longest pause, seconds.
    public var maxDelay = 30.0
    /// Failures in a row before the upload gives up.
    public var maxConsecutiveFailures = 8
    /// Seconds between build-status polls.
    public var pollInterval = 2.0
    /// Images per request, and bytes per request at most (a single larger image goes alone).
    public var filesPerRequest = 8, bytesPerRequest = 4 << 20

    /// The defaults.
    public init() {}

    /// The pause before retry number `attempt` (1-based).
    func delay(attempt: Int) -> Double { min(maxDelay, firstDelay * Double(1 << min(20, max(0, attempt - 1)))) }
}
