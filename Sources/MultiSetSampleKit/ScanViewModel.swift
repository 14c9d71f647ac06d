import Foundation
import MultiSetSDK

/// The "Scan a map" screen (docs/SCANNING.md): start, live feedback, finish (with the reasons a scan
/// is not fit), upload progress, build progress, then "Localize here" into the AR screen with the new
/// map's code; "Extend this map" then scans more of the same place and merges it into that map.
///
/// The host feeds AR frames with ``frameArrived(_:tracking:)``; the upload runs through the injected
/// `upload` (a ``ScanUploader`` in the app) and its progress comes back through `deliver` (the main
/// queue in the app; tests deliver at once).
public final class ScanViewModel: ChangeNotifying {
    /// Where the screen stands.
    public enum Phase: Equatable, Sendable {
        /// Before the scan.
        case ready
        /// Scanning (the feedback is ``feedback``).
        case scanning
        /// Finished; the problems say why it should not be uploaded (empty: ready).
        case review([ScanProblem])
        /// Uploading or building (the progress is ``progress``).
        case uploading
        /// The map is active.
        case done(mapCode: String)
        /// The scan could not be started, written, uploaded or built.
        case failed(code: String, message: String)
    }

    /// Uploads a finished scan as a new map or an extension (``ScanTarget``), reporting progress (a
    /// ``ScanUploader``'s `upload` or `extend` in the app).
    public typealias Upload =
        @Sendable (
            MapScanner.ScanResult, _ target: ScanTarget, _ progress: @escaping @Sendable (ScanUploadProgress) -> Void
        ) async throws(ScanError) -> ScanUploadOutcome

    /// The screen's phase.
    public private(set) var phase = Phase.ready { didSet { notifyChange() } }
    /// Live coverage while scanning, final once finished.
    public private(set) var feedback = ScanFeedback() { didSet { if feedback != oldValue { notifyChange() } } }
    /// The upload's latest progress.
    public private(set) var progress: ScanUploadProgress? { didSet { notifyChange() } }
    /// The new map's name.
    public var mapName = "My scan" { didSet { notifyChange() } }
    /// The map the current scan extends (``extendMap(_:)``, ``extendThisMap()``); nil for a new map.
    public private(set) var extendingMapCode: String? { didSet { notifyChange() } }
    /// Called with the new map's code by ``localizeHere()``.
    public var onLocalizeHere: ((String) -> Void)?
    public var onChange: (() -> Void)?

    private let scanner: MapScanner
    private let folder: URL
    private let upload: Upload
    private let deliver: @Sendable (@escaping @Sendable () -> Void) -> Void
    private var result: MapScanner.ScanResult?

    /// A scan screen writing into `folder`.
    public init(
        scanner: MapScanner = MapScanner(), folder: URL, upload: @escaping Upload,
        deliver: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = {
            DispatchQueue.main.async(execute: $0)
        }
    ) {
        self.scanner = scanner
        self.folder = folder
        self.upload = upload
        self.deliver = deliver
    }

    // MARK: Derived state

    /// The screen's title.
    public var titleText: String {
        switch phase {
        case .ready: extendingMapCode == nil ? "Scan a map" : "Extend \(extendingMapCode ?? "")"
        case .scanning: extendingMapCode == nil ? "Scanning…" : "Scanning more of the map…"
        case .review(let p): p.isEmpty ? "Scan complete" : "Scan not ready"
        case .uploading: extendingMapCode == nil ? "Uploading the scan" : "Extending the map"
        case .done: extendingMapCode == nil ? "Map ready" : "Map extended"
        case .failed: "Scan failed"
        }
    }

    /// One line of coverage: keyframes, metres, degrees.
    public var feedbackText: String {
        String(
            format: "%d frames · %.1f m · %.0f°", feedback.keyframes, feedback.metresWalked,
            feedback.angularCoverageDegrees)
    }

    /// The first warning in force, or the first problem of a finished scan, or the failure.
    public var warningText: String? {
        switch phase {
        case .scanning: feedback.warnings.first?.message
        case .review(let p): p.first?.description
        case .failed(_, let m): m
        default: nil
        }
    }

    /// 0–1 for the progress bar (upload the first half, build the second).
    public var progressFraction: Double? {
        switch phase {
        case .uploading: progress?.fraction ?? 0
        case .done: 1
        default: nil
        }
    }

    /// What the progress bar says.
    public var progressText: String? {
        guard case .uploading = phase else { return nil }
        switch progress {
        case .uploading(let done, let total, _, _)?: return "Uploading \(done) of \(total) images"
        case .waitingForNetwork(_, let seconds)?: return String(format: "Network lost — retrying in %.0f s", seconds)
        case .building(let stage, let percent)?: return "Building the map: \(stage) (\(percent) %)"
        case .active?: return "Map ready"
        case nil: return "Starting the upload"
        }
    }

    /// The main button's title, and whether it can be tapped.
    public var primaryButtonTitle: String {
        switch phase {
        case .ready: "Start scanning"
        case .scanning: "Finish"
        case .review(let p): p.isEmpty ? (extendingMapCode == nil ? "Upload" : "Upload and extend") : "Scan again"
        case .uploading: "Uploading…"
        case .done: "Localize here"
        case .failed: "Scan again"
        }
    }

    /// False while uploading.
    public var isPrimaryEnabled: Bool { phase != .uploading }

    /// True when "Extend this map" applies: a map is ready.
    public var canExtend: Bool {
        if case .done = phase { return true }
        return false
    }

    // MARK: Actions

    /// The main button: start, finish, upload, localize or start over, by phase.
    public func tapPrimary() {
        switch phase {
        case .ready, .failed: start()
        case .scanning: finish()
        case .review(let p):
            if p.isEmpty { startUpload() } else { start() }
        case .uploading: break
        case .done: localizeHere()
        }
    }

    /// "Extend this map": starts a scan whose upload extends the map just made (or extended).
    public func extendThisMap() {
        guard case .done(let code) = phase else { return }
        extendMap(code)
    }

    /// Starts a scan whose upload extends the account's map `mapCode` (e.g. chosen on the Landing
    /// screen's list) instead of making a new map.
    public func extendMap(_ mapCode: String) {
        guard phase != .uploading, phase != .scanning else { return }
        extendingMapCode = mapCode
        start()
    }

    /// Back to making a new map (the next scan is not an extension).
    public func scanNewMap() {
        guard phase != .uploading, phase != .scanning else { return }
        extendingMapCode = nil
        phase = .ready
    }

    /// Starts a new scan (an earlier one's folder is replaced).
    public func start() {
        try? FileManager.default.removeItem(at: folder)
        do {
            try scanner.start(in: folder, device: .init(model: "phone", name: mapName))
            result = nil
            progress = nil
            feedback = ScanFeedback()
            phase = .scanning
        } catch {
            phase = .failed(code: error.code, message: error.description)
        }
    }

    /// Hands the scanner a new AR frame and its tracking signal.
    public func frameArrived(_ frame: CameraFrame, tracking: TrackingSignal) {
        guard phase == .scanning else { return }
        scanner.notifyTracking(tracking)
        scanner.process(frame)
        feedback = scanner.feedback
    }

    /// Ends the scan and shows whether it can be uploaded.
    public func finish() {
        guard phase == .scanning else { return }
        do {
            let r = try scanner.finish()
            result = r
            feedback = r.feedback
            phase = .review(r.problems)
        } catch {
            phase = .failed(code: error.code, message: error.description)
        }
    }

    /// Uploads a finished, fit scan and follows its build; returns the task doing it (nil when there is
    /// nothing to upload).
    @discardableResult
    public func startUpload() -> Task<Void, Never>? {
        guard case .review(let p) = phase, p.isEmpty, let result else { return nil }
        phase = .uploading
        let upload = self.upload, deliver = self.deliver
        let target = extendingMapCode.map { ScanTarget.extend(mapCode: $0) } ?? .newMap(name: mapName)
        let box = WeakBox(self)
        return Task {
            let outcome: Result<ScanUploadOutcome, ScanError>
            do throws(ScanError) {
                outcome = .success(
                    try await upload(result, target) { p in deliver { box.value?.progress = p } })
            } catch {
                outcome = .failure(error)
            }
            deliver {
                guard let model = box.value else { return }
                switch outcome {
                case .success(let o): model.phase = .done(mapCode: o.mapCode)
                case .failure(let e): model.phase = .failed(code: e.code, message: e.description)
                }
            }
        }
    }

    /// "Localize here": hands the new map's code to the AR screen.
    public func localizeHere() {
        guard case .done(let code) = phase else { return }
        onLocalizeHere?(code)
    }
}
