import Dispatch
import Foundation

/// Everything the SDK takes from outside (SPEC §3.2): time, timers, HTTP, JPEG, disk and logs.
///
/// Production code uses ``live``; tests pass a ``ManualScheduler`` as clock and scheduler and an
/// in-memory transport, so every timer runs on virtual time.
public struct MultiSetEnvironment: Sendable {
    /// Monotonic time for run timers.
    public var clock: any SDKClock
    /// One-shot timers.
    public var scheduler: any SDKScheduler
    /// HTTP.
    public var transport: any HTTPTransport
    /// JPEG work; nil means frames must already be suitable JPEGs.
    public var imageCodec: (any ImageCodec)?
    /// Mesh caches live under this directory.
    public var cacheDirectory: URL
    /// Log lines.
    public var logger: SDKLogger
    /// Callbacks are delivered here, in event order.
    public var callbackQueue: DispatchQueue

    /// Creates an environment; omitted members take their live defaults.
    public init(
        clock: any SDKClock = SystemClock(), scheduler: any SDKScheduler = DispatchScheduler(),
        transport: any HTTPTransport = URLSessionTransport(), imageCodec: (any ImageCodec)? = nil,
        cacheDirectory: URL = MultiSetEnvironment.defaultCacheDirectory, logger: SDKLogger = .standardError,
        callbackQueue: DispatchQueue = MultiSetEnvironment.defaultCallbackQueue
    ) {
        self.clock = clock
        self.scheduler = scheduler
        self.transport = transport
        self.imageCodec = imageCodec
        self.cacheDirectory = cacheDirectory
        self.logger = logger
        self.callbackQueue = callbackQueue
    }

    /// The production environment.
    public static var live: MultiSetEnvironment { MultiSetEnvironment() }

    /// `$XDG_CACHE_HOME/multiset`, else `~/.cache/multiset`.
    public static var defaultCacheDirectory: URL {
        if let xdg = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg).appendingPathComponent("multiset")
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/multiset")
    }

    /// The main queue on Apple platforms, a private serial queue elsewhere.
    public static var defaultCallbackQueue: DispatchQueue {
        #if canImport(Darwin)
        return .main
        #else
        return sharedCallbackQueue
        #endif
    }

    private static let sharedCallbackQueue = DispatchQueue(label: "multiset.callbacks")
}
