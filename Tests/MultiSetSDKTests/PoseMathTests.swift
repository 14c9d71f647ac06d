import Foundation
import Testing
import VPSGeometry

@testable import MultiSetSDK

@Suite struct PoseMathTests {
    @Test func quatfBasics() {
        let q = simd_quatf(angle: .pi / 2, axis: SIMD3<Float>(0, 1, 0))
        let v = q.act(SIMD3<Float>(1, 0, 0))
        #expect(abs(v.x) < 1e-6 && abs(v.z + 1) < 1e-6)
        let id = q * q.inverse
        #expect(abs(id.real - 1) < 1e-6 && abs(id.imag.x) < 1e-6)
        #expect(abs(q.normalized.length - 1) < 1e-6)
        #expect(simd_distance(SIMD3<Float>(0, 0, 0), SIMD3<Float>(3, 4, 0)) == 5)
    }

    /// SPEC §15.1 test vectors through a whole single-frame run.
    @Test func worldFromMapVectors() {
        let h = SDKHarness()
        h.start(SDKHarness.config { $0.poseConsistencyCheck = false })
        h.sdk.localize()
        h.answerQuery(200, Bodies.single(x: 1, y: 0, z: 2))
        guard let r = SDKHarness.successes(h.events).last else {
            Issue.record("no success")
            return
        }
        #expect(simd_distance(r.position, SIMD3<Float>(-1, 1.5, -2)) < 1e-5)
        #expect(abs(r.rotation.real - 1) < 1e-6)
        #expect(h.scene.mapRootPose.position == r.position)

        let h2 = SDKHarness()
        h2.frames.position = SIMD3<Float>(0, 0, 0)
        h2.frames.rotation = simd_quatf(angle: .pi / 2, axis: SIMD3<Float>(0, 1, 0))
        h2.start(SDKHarness.config { $0.poseConsistencyCheck = false })
        h2.sdk.localize()
        h2.answerQuery(200, Bodies.single(x: 1, y: 0, z: 0))
        guard let r2 = SDKHarness.successes(h2.events).last else {
            Issue.record("no success")
            return
        }
        #expect(simd_distance(r2.position, SIMD3<Float>(0, 0, 1)) < 1e-5)
        let expected = simd_quatf(angle: .pi / 2, axis: SIMD3<Float>(0, 1, 0))
        #expect(abs(abs((r2.rotation.vector * expected.vector).sum()) - 1) < 1e-5)
        #expect(r2.estimatedPosition == SIMD3<Float>(1, 0, 0))
        #expect(r2.queryCameraPosition == SIMD3<Float>(0, 0, 0))
    }

    /// SPEC §15.3 vectors through VPSGeometry's helpers, which the SDK uses.
    @Test func handednessVectors() {
        let left = Rigid3(rotation: Quaternion(x: 0, y: 0, z: 0, w: 1), translation: Vec3(1, 2, 3))
        let right = Handedness.convertCameraPose(left)
        #expect(right.translation == Vec3(-1, 2, 3))
        #expect(right.rotation == Quaternion(x: 0, y: 1, z: 0, w: 0))
        let yaw = Quaternion(x: 0, y: 0.7071, z: 0, w: 0.7071)
        #expect(Handedness.convertCameraRotation(yaw) == Quaternion(x: 0, y: 0.7071, z: 0, w: 0.7071))
    }

    /// SPEC §4.3 portrait numbers and §4.4 downscale.
    @Test func portraitCorrection() throws {
        let frame = CameraFrame(
            image: .rgb8(Data(repeating: 0, count: 1920 * 1440 * 3)),
            intrinsics: CameraIntrinsics(fx: 1500, fy: 1510, cx: 960, cy: 700), width: 1920, height: 1440,
            cameraPosition: SIMD3(0, 0, 0), cameraRotation: simd_quatf(ix: 0, iy: 0, iz: 0, r: 1),
            orientation: .portrait, timestamp: 1)
        let g = FrameGeometry(frame)
        #expect(g.width == 1440 && g.height == 1920)
        #expect(g.intrinsics == CameraIntrinsics(fx: 1510, fy: 1500, cx: 740, cy: 960))
        let x = g.worldFromCamera.rotation.act(Vec3(1, 0, 0))
        #expect(abs(x.y - 1) < 1e-12)
        #expect(FramePreparation.scale(width: 1440, height: 1920) == 0.5)
        #expect(FramePreparation.scale(width: 640, height: 480) == 1)
        let prepared = try FramePreparation.prepare(frame, quality: 90, codec: IdentityCodec())
        #expect(prepared.width == 720 && prepared.height == 960)
        #expect(prepared.intrinsics == CameraIntrinsics(fx: 755, fy: 750, cx: 370, cy: 480))
        let small = CameraFrame(
            image: .jpeg(Data([1, 2, 3])), intrinsics: CameraIntrinsics(fx: 1, fy: 1, cx: 1, cy: 1), width: 640,
            height: 480, cameraPosition: .zero, cameraRotation: simd_quatf(ix: 0, iy: 0, iz: 0, r: 1), timestamp: 0)
        #expect(try FramePreparation.prepare(small, quality: 90, codec: nil).jpeg == Data([1, 2, 3]))
        #expect(throws: FramePreparationError.noCodec) { try FramePreparation.prepare(frame, quality: 90, codec: nil) }
    }

    @Test func rotateClockwiseMovesPixels() {
        // 2×1 image: red, green → 1×2: red on top, green below.
        let img = RGBPixels(data: Data([255, 0, 0, 0, 255, 0]), width: 2, height: 1)
        let r = PixelOperations.rotate(img, clockwiseQuarterTurns: 1)
        #expect(r.width == 1 && r.height == 2)
        #expect(r.data == Data([255, 0, 0, 0, 255, 0]))
        let img2 = RGBPixels(data: Data([1, 1, 1, 2, 2, 2]), width: 1, height: 2)
        // top=1, bottom=2 → after clockwise: left=2, right=1.
        #expect(PixelOperations.rotate(img2, clockwiseQuarterTurns: 1).data == Data([2, 2, 2, 1, 1, 1]))
        // Four turns, and a half turn twice, are the identity; three turns undo one.
        let img3 = RGBPixels(data: Data((0..<18).map { UInt8($0) }), width: 3, height: 2)
        let once = PixelOperations.rotate(img3, clockwiseQuarterTurns: 1)
        #expect(PixelOperations.rotate(once, clockwiseQuarterTurns: 3) == img3)
        let half = PixelOperations.rotate(img3, clockwiseQuarterTurns: 2)
        #expect(PixelOperations.rotate(half, clockwiseQuarterTurns: 2) == img3)
        #expect(half.data.prefix(3) == Data([15, 16, 17]))
    }
}

/// A codec that "encodes" to raw bytes (tests only).
struct IdentityCodec: ImageCodec {
    func encodeJPEG(_ image: RGBPixels, quality: Int) -> Data? { Data([0xFF, 0xD8]) + image.data.prefix(16) }
    func decodeJPEG(_ data: Data) -> RGBPixels? { nil }
}
