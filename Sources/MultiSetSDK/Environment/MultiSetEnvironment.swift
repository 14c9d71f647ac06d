import Dispatch
import Foundation

/// Everything the SDK takes from outside (SPEC §3.2): time, timers, HTTP, JPEG, disk, logs, and the
/// queues its callbacks and its frame work run on.
///
/// Production code uses ``live``; tests pass a ``ManualScheduler`` as clock and scheduler, an
/// in-memory transport and no frame queue, so every timer runs on virtual time and frame work inline.
public struct MultiSetEnvironment: Sendable {
    /// Monotonic time for run timers.
    public var clock: any SDKClock
    /// One-shot timers.
    public var scheduler: any SDKScheduler
    /// HTTP.
    public var transport: any HTTPTransport
    /// JPEG work for frames that must be turned, scaled or re-encoded (SPEC §4.3–4.4); nil means frames
    /// must already be upright JPEGs within 960 px.
    public var imageCodec: (any ImageCodec)?
    /// Mesh caches live under this directory.
    public var cacheDirectory: URL
    /// Log lines.
    public var logger: SDKLogger
    /// Callbacks are delivered here, in event order. The default is the main queue on every platform,
    /// so callbacks run on the main actor; scene calls always do (``MultiSetScene`` is `@MainActor`).
    /// A program that never runs the main queue (a command-line tool without `dispatchMain()`) must
    /// pass its own serial queue.
    public var callbackQueue: DispatchQueue
    /// Where frames are acquired from the frame source and prepared (turned, scaled, JPEG-encoded), off
    /// the caller's thread; nil runs that work inline (tests on virtual time).
    public var frameQueue: DispatchQueue?

    /// Creates an environment; omitted members take their live defaults.
    public init(
        clock: any SDKClock = SystemClock(), scheduler: any SDKScheduler = DispatchScheduler(),
        transport: any HTTPTransport = URLSessionTransport(),
        imageCodec: (any ImageCodec)? = MultiSetEnvironment.defaultImageCodec,
        cacheDirectory: URL = MultiSetEnvironment.defaultCacheDirectory, logger: SDKLogger = .standardError,
        callbackQueue: DispatchQueue = .main,
        frameQueue: DispatchQueue? = MultiSetEnvironment.makeFrameQueue()
    ) {
        self.clock = clock
        self.scheduler = scheduler
        self.transport = transport
        self.imageCodec = imageCodec
        self.cacheDirectory = cacheDirectory
        self.logger = logger
        self.callbackQueue = callbackQueue
        self.frameQueue = frameQueue
    }

    /// Whether callbacks go to the main queue (then they share one ordered stream with scene calls).
    /// Compared by label: Linux's Dispatch hands out a new `DispatchQueue.main` object on each access.
    var callsBackOnMain: Bool { callbackQueue.label == DispatchQueue.main.label }

    /// The production environment.
    public static var live: MultiSetEnvironment { MultiSetEnvironment() }

    /// ImageIO and Core Graphics where they exist (Apple platforms), else the SDK's own pure-Swift
    /// codec (``SwiftImageCodec``).
    public static var defaultImageCodec: any ImageCodec {
        #if canImport(ImageIO) && canImport(CoreGraphics)
        return ImageIOImageCodec()
        #else
        return SwiftImageCodec()
        #endif
    }

    /// A private serial queue for frame work (user-initiated priority).
    public static func makeFrameQueue() -> DispatchQueue {
        DispatchQueue(label: "multiset.frames", qos: .userInitiated)
    }

    /// The app's Caches folder on iOS, tvOS, watchOS and visionOS (`…/Library/Caches/multiset`); elsewhere
    /// `$XDG_CACHE_HOME/multiset`, else `~/.cache/multiset`.
    public static var defaultCacheDirectory: URL {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        let caches =
            FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return caches.appendingPathComponent("multiset")
        #else
        if let xdg = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg).appendingPathComponent("multiset")
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/multiset")
        #endif
    }
}
