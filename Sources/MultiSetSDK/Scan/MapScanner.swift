import Foundation
import VPSCapture
import VPSGeometry

#if canImport(simd)
import simd
#endif

/// Scans a space for a map: keeps keyframes from the AR frame source the localizer uses, writes them
/// as a capture dataset (format v1) into a folder as it goes, and tells the user how the scan is doing
/// (docs/SCANNING.md).
///
/// The host drives it like the SDK: it forwards tracking signals (``notifyTracking(_:)``) and calls
/// ``capture(from:location:)`` for each new AR frame (or ``process(_:gps:)`` with a frame it has).
/// Keyframes follow a ``ScanKeyframePolicy`` (spacing in time, distance and rotation; no blurred frame).
/// ``finish()`` closes the scan and lists what makes it unfit for upload (too short, too dark) before
/// anything is sent; ``ScanUploader`` then uploads the folder.
///
/// Thread-safe; every method returns quickly except ``process(_:gps:)``, which decodes the candidate
/// frame (about 10 ms for 640×480 in a release build) and writes it.
public final class MapScanner: @unchecked Sendable {
    /// The scan's life cycle.
    public enum State: Sendable, Equatable {
        /// Not started.
        case idle
        /// Scanning, with the live feedback.
        case scanning(ScanFeedback)
        /// Finished: the dataset on disk and what is wrong with it, if anything.
        case finished(ScanResult)
    }

    /// A finished scan.
    public struct ScanResult: Sendable, Equatable {
        /// The folder holding `captures.json` and `images/`.
        public var folder: URL
        /// The dataset as written.
        public var dataset: CaptureDataset
        /// The final feedback.
        public var feedback: ScanFeedback
        /// Why it should not be uploaded (empty: ready).
        public var problems: [ScanProblem]

        /// True when nothing is wrong with the scan.
        public var isReadyToUpload: Bool { problems.isEmpty }
    }

    private struct Session {
        var writer: CaptureFolderWriter
        var feedback = ScanFeedback()
        var lastKeyframe: (time: Double, pose: Rigid3)?
        var lastFrame: (time: Double, pose: Rigid3)?
        var firstTime: Double?
        var recentSharpness: [Double] = []
        var sectors = Set<Int>()
        var motionWarning = false
        var imageWarnings: Set<ScanWarning> = []
    }

    private enum Phase {
        case idle
        case scanning(Session)
        case finished(ScanResult)
    }

    /// The keyframe policy.
    public let policy: ScanKeyframePolicy
    /// What a scan needs before upload.
    public let requirements: ScanRequirements
    private let codec: (any ImageCodec)?
    private let jpegQuality: Int
    private let lock = NSLock()
    private var phase = Phase.idle
    private var tracking = TrackingSignal.initializing

    /// A scanner.
    ///
    /// - Parameters:
    ///   - imageCodec: decodes JPEG frames to measure them and encodes RGB frames (default: the SDK's).
    ///   - jpegQuality: JPEG quality of RGB frames, 50–100.
    public init(
        policy: ScanKeyframePolicy = ScanKeyframePolicy(), requirements: ScanRequirements = ScanRequirements(),
        imageCodec: (any ImageCodec)? = MultiSetEnvironment.defaultImageCodec, jpegQuality: Int = 90
    ) {
        self.policy = policy
        self.requirements = requirements
        codec = imageCodec
        self.jpegQuality = min(100, max(50, jpegQuality))
    }

    /// Where the scan stands.
    public var state: State {
        lock.withLock {
            switch phase {
            case .idle: .idle
            case .scanning(let s): .scanning(s.feedback)
            case .finished(let r): .finished(r)
            }
        }
    }

    /// The live feedback (empty before a scan).
    public var feedback: ScanFeedback {
        lock.withLock {
            switch phase {
            case .idle: ScanFeedback()
            case .scanning(let s): s.feedback
            case .finished(let r): r.feedback
            }
        }
    }

    /// Starts a scan writing into `folder` (created; it must not hold a dataset yet).
    ///
    /// - Throws: ``ScanError/notScanning`` while a scan runs, `.folderInUse`, `.writeFailed`.
    public func start(in folder: URL, device: CaptureDataset.Device) throws(ScanError) {
        lock.lock()
        defer { lock.unlock() }
        if case .scanning = phase { throw .notScanning }
        phase = .scanning(Session(writer: try CaptureFolderWriter(folder: folder, device: device)))
    }

    /// The host's AR tracking signal (as for `MultiSet.notifyTracking`).
    public func notifyTracking(_ signal: TrackingSignal) {
        lock.withLock { tracking = signal }
    }

    /// Looks at the source's newest frame (with the location's fix, if any); nil when there is none.
    @discardableResult
    public func capture(from source: any FrameSource, location: (any LocationProvider)? = nil) -> ScanFrameDecision? {
        guard let frame = source.acquire() else { return nil }
        return process(frame, gps: location?.latest)
    }

    /// Looks at one frame: keeps it as a keyframe if the policy says so, and updates the feedback.
    @discardableResult
    public func process(_ frame: CameraFrame, gps: GeoFix? = nil) -> ScanFrameDecision {
        lock.withLock {
            guard case .scanning(var session) = phase else { return .skipped(.notScanning) }
            var decision = motionStep(&session, time: frame.timestamp, pose: Self.rigid(frame))
            if decision == nil { decision = imageStep(&session, frame, gps) }
            finishStep(&session)
            return decision ?? .skipped(.image)
        }
    }

    /// The first half of ``process(_:gps:)`` for hosts that render or fetch images only when needed:
    /// accounts for a frame's pose (`worldFromCamera`, ARKit axes, metres; `timestamp` in seconds) and
    /// returns nil when the frame is a keyframe candidate — then pass its image to
    /// ``processCandidate(_:gps:)`` — or why it is skipped.
    public func considerPose(timestamp: Double, worldFromCamera: Rigid3) -> ScanFrameDecision? {
        lock.withLock {
            guard case .scanning(var session) = phase else { return .skipped(.notScanning) }
            let decision = motionStep(&session, time: timestamp, pose: worldFromCamera)
            finishStep(&session)
            return decision
        }
    }

    /// The second half of ``process(_:gps:)``: the image of a frame ``considerPose(timestamp:worldFromCamera:)``
    /// called a candidate (same timestamp and pose).
    @discardableResult
    public func processCandidate(_ frame: CameraFrame, gps: GeoFix? = nil) -> ScanFrameDecision {
        lock.withLock {
            guard case .scanning(var session) = phase else { return .skipped(.notScanning) }
            let decision = imageStep(&session, frame, gps)
            finishStep(&session)
            return decision
        }
    }

    private func finishStep(_ session: inout Session) {
        session.feedback.warnings = ScanWarning.allCases.filter { warning in
            switch warning {
            case .tooFast: session.motionWarning
            case .trackingLimited: tracking != .normal
            case .tooFewFeatures:
                session.imageWarnings.contains(.tooFewFeatures) || tracking == .limited(.insufficientFeatures)
            case .tooDark: session.imageWarnings.contains(.tooDark)
            }
        }
        phase = .scanning(session)
    }

    /// Ends the scan: the dataset stays in its folder; the result lists why it should not be uploaded.
    ///
    /// - Throws: ``ScanError/notScanning`` without a running scan.
    @discardableResult
    public func finish() throws(ScanError) -> ScanResult {
        lock.lock()
        defer { lock.unlock() }
        guard case .scanning(var s) = phase else { throw .notScanning }
        s.feedback.warnings = []
        let result = ScanResult(
            folder: s.writer.folder, dataset: s.writer.dataset, feedback: s.feedback,
            problems: requirements.problems(of: s.feedback))
        phase = .finished(result)
        return result
    }

    // MARK: One frame

    /// Motion accounting and the spacing policy: nil for a candidate.
    private func motionStep(_ s: inout Session, time: Double, pose: Rigid3) -> ScanFrameDecision? {
        if let last = s.lastFrame, time <= last.time { return .skipped(.stale) }
        s.feedback.framesSeen += 1
        let firstTime = s.firstTime ?? time
        s.firstTime = firstTime
        s.feedback.duration = time - firstTime
        let normal = tracking == .normal
        if let last = s.lastFrame, normal {
            let dt = time - last.time
            let moved = (pose.translation - last.pose.translation).norm
            s.feedback.metresWalked += moved
            let turned = ScanKeyframePolicy.angleDegrees(last.pose.rotation, pose.rotation)
            s.motionWarning = dt > 0 && (moved / dt > policy.maxSpeed || turned / dt > policy.maxTurnRate)
        }
        s.lastFrame = normal ? (time, pose) : nil
        guard normal else { return .skipped(.tracking) }
        guard policy.isCandidate(time: time, worldFromCamera: pose, after: s.lastKeyframe) else {
            return .skipped(.spacing)
        }
        return nil
    }

    /// Sharpness, brightness and texture of a candidate; keeps and writes it unless blurred.
    private func imageStep(_ s: inout Session, _ frame: CameraFrame, _ gps: GeoFix?) -> ScanFrameDecision {
        let time = frame.timestamp
        let pose = Self.rigid(frame)
        guard let (pixels, jpeg) = pixelsAndJPEG(frame) else { return .skipped(.image) }
        let stats = ScanImageStatistics(rgb: pixels.data, width: pixels.width, height: pixels.height)
        s.imageWarnings = []
        if stats.brightness < policy.darkBrightness { s.imageWarnings.insert(.tooDark) }
        if stats.texture < policy.minTexture { s.imageWarnings.insert(.tooFewFeatures) }
        if policy.isBlurred(stats.sharpness, recent: s.recentSharpness) {
            s.feedback.blurredSkipped += 1
            s.motionWarning = true
            return .skipped(.blurred)
        }
        let index = s.feedback.keyframes
        let id = String(format: "frame_%06d", index)
        let record = CaptureDataset.Frame(
            id: id, image: "images/\(id).jpg", timestamp: time,
            intrinsics: CaptureDataset.Intrinsics(
                Camera(
                    fx: frame.intrinsics.fx, fy: frame.intrinsics.fy, cx: frame.intrinsics.cx,
                    cy: frame.intrinsics.cy, width: frame.width, height: frame.height)),
            arPose: CaptureDataset.Pose(pose), trackingState: "normal",
            gps: gps.map {
                CaptureDataset.GPS(
                    latitude: $0.latitude, longitude: $0.longitude, altitude: $0.altitude,
                    horizontalAccuracy: $0.accuracy)
            })
        do { try s.writer.append(record, jpeg: jpeg) } catch { return .skipped(.image) }
        s.lastKeyframe = (time, pose)
        s.recentSharpness.append(stats.sharpness)
        if s.recentSharpness.count > 5 { s.recentSharpness.removeFirst() }
        s.feedback.keyframes += 1
        if stats.brightness < policy.darkBrightness { s.feedback.darkKeyframes += 1 }
        if stats.texture < policy.minTexture { s.feedback.featurelessKeyframes += 1 }
        s.sectors.insert(Self.headingSector(pose))
        s.feedback.headingSectors = s.sectors.count
        return .kept(index: index)
    }

    /// The frame's pixels (to measure) and JPEG bytes (to store).
    private func pixelsAndJPEG(_ frame: CameraFrame) -> (RGBPixels, Data)? {
        switch frame.image {
        case .jpeg(let data):
            guard let pixels = codec?.decodeJPEG(data) else { return nil }
            return (pixels, data)
        case .rgb8(let data):
            let pixels = RGBPixels(data: data, width: frame.width, height: frame.height)
            guard let jpeg = codec?.encodeJPEG(pixels, quality: jpegQuality) else { return nil }
            return (pixels, jpeg)
        }
    }

    /// `worldFromCamera` of a frame (ARKit axes).
    static func rigid(_ frame: CameraFrame) -> Rigid3 {
        let q = frame.cameraRotation.vector
        return Rigid3(
            rotation: Quaternion(x: Double(q.x), y: Double(q.y), z: Double(q.z), w: Double(q.w)).normalized,
            translation: Vec3(
                Double(frame.cameraPosition.x), Double(frame.cameraPosition.y), Double(frame.cameraPosition.z)))
    }

    /// The 30° sector of the camera's horizontal viewing direction (its −Z axis).
    static func headingSector(_ worldFromCamera: Rigid3) -> Int {
        let forward = worldFromCamera.rotation.act(Vec3(0, 0, -1))
        let angle = atan2(forward.x, -forward.z)
        let unit = (angle / (2 * .pi) + 1).truncatingRemainder(dividingBy: 1)
        return min(ScanFeedback.sectorCount - 1, Int(unit * Double(ScanFeedback.sectorCount)))
    }
}
