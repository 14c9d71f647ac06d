#if canImport(SwiftUI) && canImport(ARKit) && os(iOS)
import ARKit
import CoreImage
import MultiSetSDK
import UIKit

/// ARKit as the SDK's `FrameSource` (SPEC §4): the newest `ARFrame` as a `CameraFrame`, and the
/// tracking state as `TrackingSignal`s.
///
/// The sensor image is delivered as ARKit captures it (landscape sensor orientation, not corrected),
/// halved to 960×720 RGB with its intrinsics scaled alike; `orientation` is `.portrait` while the
/// interface is portrait, so the SDK turns it upright once (SPEC §4.3). The ARKit camera transform
/// already has +X right and +Y up along the sensor image, looking down −Z.
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
    private let sdk: MultiSet
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
        rgba.withUnsafeMutableBytes { buffer in
            context.render(
                image, toBitmap: buffer.baseAddress!, rowBytes: width * 4,
                bounds: CGRect(x: 0, y: 0, width: width, height: height), format: .RGBA8,
                colorSpace: CGColorSpaceCreateDeviceRGB())
        }
        let k = f.intrinsics
        let s = Double(scale)
        return CameraFrame(
            image: .rgb8(CoreGraphicsImageCodec.dropAlpha(rgba)),
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
        let portrait = MainActor.assumeIsolated {
            (UIApplication.shared.connectedScenes.first as? UIWindowScene)?.interfaceOrientation.isPortrait ?? true
        }
        lock.withLock {
            latest = Latest(
                buffer: frame.capturedImage, intrinsics: frame.camera.intrinsics,
                resolution: frame.camera.imageResolution, transform: frame.camera.transform,
                orientation: portrait ? .portrait : .landscape, timestamp: frame.timestamp)
        }
        report(Self.signal(frame.camera.trackingState))
    }

    public func sessionWasInterrupted(_ session: ARSession) { report(.interrupted) }

    private func report(_ signal: TrackingSignal) {
        let changed = lock.withLock { () -> Bool in
            defer { lastSignal = signal }
            return lastSignal != signal
        }
        if changed { sdk.notifyTracking(signal) }
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
