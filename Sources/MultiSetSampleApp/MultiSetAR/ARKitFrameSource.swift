#if canImport(SwiftUI) && canImport(ARKit) && os(iOS)
import ARKit
import CoreImage
import MultiSetSDK
import UIKit

/// ARKit as the SDK's `FrameSource` (SPEC §4): the newest `ARFrame` as a `CameraFrame`, and the
/// tracking state as `TrackingSignal`s.
///
/// The sensor image is handed over as ARKit captures it (landscape-right, whatever the interface
/// orientation), halved to RGB with its intrinsics scaled alike; `orientation` follows the interface
/// orientation through `FrameOrientation(sensorImageFor:)`, so the SDK turns the image upright once
/// (SPEC §4.3), landscape-left and upside-down portrait included. The ARKit camera transform already
/// has +X right and +Y up along the sensor image, looking down −Z. `acquire()` runs on the SDK's frame
/// queue, never on the main thread; the session delegate runs on the main queue.
@available(iOS 17.0, *)
public final class ARKitFrameSource: NSObject, FrameSource, ARSessionDelegate, @unchecked Sendable {
    private struct Latest {
        var buffer: CVPixelBuffer
        var intrinsics: simd_float3x3
        var resolution: CGSize
        var transform: simd_float4x4
        var orientation: FrameOrientation
        var timestamp: TimeInterval
    }

    private let lock = NSLock()
    private var latest: Latest?
    private var lastSignal: TrackingSignal?
    private let context = CIContext()
    /// The SDK this source reports tracking to.
    public let sdk: MultiSet
    /// The session to restart on `resetWorldOrigin()`.
    public weak var session: ARSession?

    /// A source reporting tracking to `sdk`.
    public init(sdk: MultiSet) {
        self.sdk = sdk
    }

    // MARK: FrameSource

    public func acquire() -> CameraFrame? {
        guard let f = lock.withLock({ latest }) else { return nil }
        let scale: CGFloat = 0.5
        let width = Int(f.resolution.width * scale), height = Int(f.resolution.height * scale)
        let image = CIImage(cvPixelBuffer: f.buffer).transformed(by: CGAffineTransform(scaleX: scale, y: scale))
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        let rendered = rgba.withUnsafeMutableBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            context.render(
                image, toBitmap: base, rowBytes: width * 4, bounds: CGRect(x: 0, y: 0, width: width, height: height),
                format: .RGBA8, colorSpace: CGColorSpaceCreateDeviceRGB())
            return true
        }
        guard rendered else { return nil }
        let k = f.intrinsics
        let s = Double(scale)
        return CameraFrame(
            image: .rgb8(RGBPixels(rgbx: rgba, width: width, height: height).data),
            intrinsics: CameraIntrinsics(
                fx: Double(k[0][0]) * s, fy: Double(k[1][1]) * s, cx: Double(k[2][0]) * s, cy: Double(k[2][1]) * s),
            width: width, height: height,
            cameraPosition: SIMD3(f.transform.columns.3.x, f.transform.columns.3.y, f.transform.columns.3.z),
            cameraRotation: simd_quatf(f.transform), orientation: f.orientation, timestamp: f.timestamp)
    }

    public func resetWorldOrigin() {
        DispatchQueue.main.async { [weak self] in
            guard let session = self?.session, let configuration = session.configuration else { return }
            session.run(configuration, options: [.resetTracking, .removeExistingAnchors])
        }
    }

    // MARK: ARSessionDelegate (main queue)

    public func session(_ session: ARSession, didUpdate frame: ARFrame) {
        let interface = MainActor.assumeIsolated { () -> InterfaceOrientation in
            let scene = UIApplication.shared.connectedScenes.compactMap { $0 as? UIWindowScene }.first
            return Self.interfaceOrientation(scene?.interfaceOrientation ?? .portrait)
        }
        lock.withLock {
            latest = Latest(
                buffer: frame.capturedImage, intrinsics: frame.camera.intrinsics,
                resolution: frame.camera.imageResolution, transform: frame.camera.transform,
                orientation: FrameOrientation(sensorImageFor: interface), timestamp: frame.timestamp)
        }
        report(Self.signal(frame.camera.trackingState))
    }

    public func sessionWasInterrupted(_ session: ARSession) { report(.interrupted) }

    public func sessionInterruptionEnded(_ session: ARSession) {
        // ARKit resumes tracking on its own; the next frame's state says how.
    }

    private func report(_ signal: TrackingSignal) {
        let changed = lock.withLock { () -> Bool in
            defer { lastSignal = signal }
            return lastSignal != signal
        }
        if changed { sdk.notifyTracking(signal) }
    }

    /// UIKit's interface orientation as the SDK names it.
    public static func interfaceOrientation(_ o: UIInterfaceOrientation) -> InterfaceOrientation {
        switch o {
        case .portraitUpsideDown: return .portraitUpsideDown
        case .landscapeLeft: return .landscapeLeft
        case .landscapeRight: return .landscapeRight
        case .portrait, .unknown: return .portrait
        @unknown default: return .portrait
        }
    }

    /// ARKit's tracking state as the SDK's signal (SPEC §4.5).
    public static func signal(_ state: ARCamera.TrackingState) -> TrackingSignal {
        switch state {
        case .normal: return .normal
        case .notAvailable: return .notAvailable
        case .limited(let reason):
            switch reason {
            case .initializing: return .initializing
            case .excessiveMotion: return .limited(.excessiveMotion)
            case .insufficientFeatures: return .limited(.insufficientFeatures)
            case .relocalizing: return .limited(.relocalizing)
            @unknown default: return .limited(.other)
            }
        }
    }
}
#endif
