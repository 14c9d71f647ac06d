import Foundation
import Testing
import VPSGeometry

@testable import MultiSetSDK

#if canImport(simd)
import simd
#endif

/// D8: every interface orientation's sensor image goes out upright, with intrinsics and pose that
/// still project the world where the pixels show it.
@Suite struct FrameOrientationTests {
    /// A codec that keeps the pixels it was asked to encode.
    final class CapturingCodec: ImageCodec, @unchecked Sendable {
        private let lock = NSLock()
        private var last: RGBPixels?
        var encoded: RGBPixels? { lock.withLock { last } }
        func encodeJPEG(_ image: RGBPixels, quality: Int) -> Data? {
            lock.withLock { last = image }
            return Data([0xFF, 0xD8, 0xFF, 0xD9])
        }
        func decodeJPEG(_ data: Data) -> RGBPixels? { nil }
    }

    /// ARKit's image is landscape-right: only `.landscapeRight` needs no turn; landscape-left is a half
    /// turn (it used to be sent as delivered, upside down).
    @Test func interfaceOrientationsMapToTheirTurns() {
        #expect(FrameOrientation(sensorImageFor: .portrait) == .portrait)
        #expect(FrameOrientation(sensorImageFor: .landscapeRight) == .landscape)
        #expect(FrameOrientation(sensorImageFor: .landscapeLeft) == .landscapeLeft)
        #expect(FrameOrientation(sensorImageFor: .portraitUpsideDown) == .portraitUpsideDown)
        #expect(FrameOrientation.allCases.map(\.clockwiseQuarterTurns).sorted() == [0, 1, 2, 3])
    }

    /// The sensor image of an upright scene, for each orientation, comes out as that upright scene.
    @Test func preparedPixelsAreUpright() throws {
        let (w, h) = (6, 4)
        let upright = RGBPixels(data: Data((0..<(w * h * 3)).map { UInt8($0) }), width: w, height: h)
        for orientation in FrameOrientation.allCases {
            let turns = orientation.clockwiseQuarterTurns
            // What the sensor delivers: the upright scene turned back.
            let sensor = PixelOperations.rotate(upright, clockwiseQuarterTurns: 4 - turns)
            let frame = CameraFrame(
                image: .rgb8(sensor.data), intrinsics: CameraIntrinsics(fx: 5, fy: 5, cx: 2, cy: 1.5),
                width: sensor.width, height: sensor.height, cameraPosition: .zero,
                cameraRotation: simd_quatf(ix: 0, iy: 0, iz: 0, r: 1), orientation: orientation, timestamp: 0)
            let codec = CapturingCodec()
            let prepared = try FramePreparation.prepare(frame, quality: 90, codec: codec)
            #expect(codec.encoded == upright, "\(orientation)")
            #expect(prepared.width == w && prepared.height == h, "\(orientation)")
        }
    }

    /// Projecting a world point through the delivered camera and through the upright one lands on
    /// the same scene point: the pixel maps exactly as the image turns.
    @Test func uprightGeometryProjectsConsistently() {
        let (w, h) = (1920, 1440)
        let k = CameraIntrinsics(fx: 1500, fy: 1510, cx: 955, cy: 710)
        let axis = SIMD3<Float>(0.2, 1, 0.1) / (0.2 * 0.2 + 1 + 0.1 * 0.1 as Float).squareRoot()
        let rotation = simd_quatf(angle: 0.4, axis: axis)
        let position = SIMD3<Float>(0.3, 1.5, -0.2)
        let point = Vec3(1.1, 1.3, -3)
        /// ARKit camera: +X right, +Y up, looking down −Z; pixel y grows downwards.
        func project(_ k: CameraIntrinsics, _ worldFromCamera: Rigid3) -> (Double, Double) {
            let c = worldFromCamera.inverse * point
            return (k.fx * c.x / -c.z + k.cx, k.fy * -c.y / -c.z + k.cy)
        }
        for orientation in FrameOrientation.allCases {
            let frame = CameraFrame(
                image: .rgb8(Data()), intrinsics: k, width: w, height: h, cameraPosition: position,
                cameraRotation: rotation, orientation: orientation, timestamp: 0)
            let delivered = FrameGeometry(
                intrinsics: k, width: w, height: h,
                worldFromCamera: Rigid3(
                    rotation: PoseConversion.quaternion(rotation), translation: PoseConversion.vec3(position)),
                turns: 0)
            let (u, v) = project(k, delivered.worldFromCamera)
            let g = FrameGeometry(frame)
            let (u2, v2) = project(g.intrinsics, g.worldFromCamera)
            let expected: (Double, Double)
            switch orientation.clockwiseQuarterTurns {
            case 0: expected = (u, v)
            case 1: expected = (Double(h) - v, u)
            case 2: expected = (Double(w) - u, Double(h) - v)
            default: expected = (v, Double(w) - u)
            }
            #expect(abs(u2 - expected.0) < 1e-6 && abs(v2 - expected.1) < 1e-6, "\(orientation)")
            let turnsOdd = orientation.clockwiseQuarterTurns % 2 == 1
            #expect((g.width, g.height) == (turnsOdd ? (h, w) : (w, h)))
        }
    }
}
