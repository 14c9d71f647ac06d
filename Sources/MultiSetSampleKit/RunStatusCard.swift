import MultiSetSDK

/// The small card at the top left that follows every run, background ones included (SPEC §16.5).
public struct RunStatusCard: Equatable, Sendable {
    /// Where the run is.
    public enum Phase: Equatable, Sendable {
        /// Capturing image `index` of `total`.
        case capturing(index: Int, total: Int)
        /// Sending the request.
        case uploading
        /// Waiting for the server.
        case matching
        /// Accepted: a tick.
        case localized
        /// Failed or discarded: a red mark.
        case notLocalized
    }

    /// The symbol beside the text.
    public enum Symbol: Equatable, Sendable {
        /// A run in progress.
        case spinner
        /// Success.
        case tick
        /// Failure.
        case redMark
    }

    /// The phase.
    public var phase: Phase
    /// A background or relocalization run.
    public var isBackground: Bool

    /// `Capturing <i>/<n>`, `Uploading…`, `Matching…`, `Localized`, `Not localized`; background runs
    /// prefixed `Background · `.
    public var text: String {
        let base: String
        switch phase {
        case .capturing(let i, let n): base = "Capturing \(i)/\(n)"
        case .uploading: base = "Uploading…"
        case .matching: base = "Matching…"
        case .localized: base = "Localized"
        case .notLocalized: base = "Not localized"
        }
        return isBackground ? "Background · " + base : base
    }

    /// Spinner while running, tick or red mark at the end.
    public var symbol: Symbol {
        switch phase {
        case .localized: .tick
        case .notLocalized: .redMark
        default: .spinner
        }
    }

    /// The run ended; the card fades 2 s later.
    public var isFinished: Bool { phase == .localized || phase == .notLocalized }
}
