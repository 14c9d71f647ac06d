import Foundation
import Testing
import VPSTestSupport

@testable import VPSGeometry

@Suite struct ConventionsTests {
    static func close(_ a: Quaternion, _ b: Quaternion, _ tol: Double = 1e-4) -> Bool {
        abs(a.x - b.x) < tol && abs(a.y - b.y) < tol && abs(a.z - b.z) < tol && abs(a.w - b.w) < tol
    }

    @Test func handednessTestVectorsOfSpec15() {
        // SPEC §15.3: left-handed camera ((1, 2, 3), identity) ↔ right-handed ((−1, 2, 3), (0, 1, 0, 0)).
        let lh = Rigid3(rotation: .identity, translation: Vec3(1, 2, 3))
        let rh = Handedness.convertCameraPose(lh)
        #expect(rh.translation == Vec3(-1, 2, 3))
        #expect(Self.close(rh.rotation, Quaternion(x: 0, y: 1, z: 0, w: 0)))
        // Left-handed yaw of 90° (0, 0.7071, 0, 0.7071) ↔ right-handed (0, 0.7071, 0, 0.7071).
        let yaw = Quaternion(x: 0, y: 0.7071, z: 0, w: 0.7071)
        #expect(Self.close(Handedness.convertCameraRotation(yaw), Quaternion(x: 0, y: 0.7071, z: 0, w: 0.7071)))
        // Frame rule: (x, y, z, w) ↔ (x, −y, −z, w).
        let q = Quaternion(x: 0.1, y: 0.2, z: 0.3, w: 0.9)
        #expect(Handedness.convertFrameRotation(q) == Quaternion(x: 0.1, y: -0.2, z: -0.3, w: 0.9))
    }

    @Test func handednessConversionsAreInvolutions() {
        var rng = SplitMix64(testName: "Conventions.involution")
        for _ in 0..<1000 {
            let t = Rigid3(rotation: rng.rotation(), translation: rng.vector(scale: 10))
            for convert in [Handedness.convertCameraPose, Handedness.convertFramePose] {
                let back = convert(convert(t))
                let e = back.error(to: t)
                #expect(e.rotation < 1e-12 && e.translation < 1e-12)
            }
        }
    }

    @Test func cameraConversionMatchesMirroredGeometry() {
        // A left-handed camera looks down +Z; mirrored (X negated) it must look where the right-handed
        // (ARKit) camera, which looks down −Z, is looking after conversion.
        var rng = SplitMix64(testName: "Conventions.geometry")
        for _ in 0..<1000 {
            let q = rng.rotation()
            let forwardLH = q.act(Vec3(0, 0, 1))
            let upLH = q.act(Vec3(0, 1, 0))
            let rh = Handedness.convertCameraRotation(q).normalized
            let forwardRH = rh.act(Vec3(0, 0, -1))
            let upRH = rh.act(Vec3(0, 1, 0))
            #expect((forwardRH - Handedness.convertPosition(forwardLH)).norm < 1e-9)
            #expect((upRH - Handedness.convertPosition(upLH)).norm < 1e-9)
        }
    }

    @Test func arkitAndComputerVisionCameraAxes() {
        var rng = SplitMix64(testName: "Conventions.axes")
        for _ in 0..<100 {
            let worldFromARKit = Rigid3(rotation: rng.rotation(), translation: rng.vector(scale: 5))
            let worldFromCV = CameraAxes.cvPose(fromARKit: worldFromARKit)
            // CV +Z (forward) is ARKit −Z; CV +Y (down) is ARKit −Y.
            #expect((worldFromCV.rotate(Vec3(0, 0, 1)) - worldFromARKit.rotate(Vec3(0, 0, -1))).norm < 1e-12)
            #expect((worldFromCV.rotate(Vec3(0, 1, 0)) - worldFromARKit.rotate(Vec3(0, -1, 0))).norm < 1e-12)
            #expect(worldFromCV.translation == worldFromARKit.translation)
            let back = CameraAxes.arkitPose(fromCV: worldFromCV)
            #expect(back.error(to: worldFromARKit).rotation < 1e-12)
        }
    }

    @Test func quaternionMatrixAndRigidAlgebra() {
        var rng = SplitMix64(testName: "Conventions.algebra")
        for _ in 0..<1000 {
            let a = rng.rotation(), b = rng.rotation()
            let v = rng.vector(scale: 3)
            #expect(((a * b).act(v) - a.act(b.act(v))).norm < 1e-12)
            #expect((a.matrix * v - a.act(v)).norm < 1e-12)
            #expect(Quaternion(a.matrix).angle(to: a) < 1e-7)
            #expect(Quaternion(rotationVector: a.rotationVector).angle(to: a) < 1e-7)
            let ta = Rigid3(rotation: a, translation: rng.vector(scale: 5))
            let tb = Rigid3(rotation: b, translation: rng.vector(scale: 5))
            #expect(((ta * tb) * v - ta * (tb * v)).norm < 1e-12)
            #expect((ta.inverse * (ta * v) - v).norm < 1e-12)
            let sim = Sim3(scale: rng.uniform(0.5...2), rotation: a, translation: rng.vector(scale: 1))
            #expect((sim.inverse.transform(sim.transform(v)) - v).norm < 1e-12)
        }
        // SPEC §15.1 test vectors: world_T_map = world_T_cam · inverse(map_T_cam).
        let worldFromCam = Rigid3(rotation: .identity, translation: Vec3(0, 1.5, 0))
        let mapFromCam = Rigid3(rotation: .identity, translation: Vec3(1, 0, 2))
        #expect((worldFromCam * mapFromCam.inverse).translation == Vec3(-1, 1.5, -2))
        let yaw = Quaternion(axis: Vec3(0, 1, 0), angle: .pi / 2)
        let r = Rigid3(rotation: yaw, translation: .zero) * Rigid3(translation: Vec3(1, 0, 0)).inverse
        #expect((r.translation - Vec3(0, 0, 1)).norm < 1e-12)
        #expect(r.rotation.angle(to: yaw) < 1e-12)
    }

    @Test func cameraModelsRoundTrip() {
        var rng = SplitMix64(testName: "Conventions.camera")
        let models: [LensDistortion] = [
            .none, .simpleRadial(k: -0.08), .radial(k1: -0.1, k2: 0.02),
            .opencv(k1: -0.12, k2: 0.03, p1: 0.001, p2: -0.0015),
        ]
        for model in models {
            let camera = Camera(fx: 600, fy: 590, cx: 321.5, cy: 239.5, width: 640, height: 480, distortion: model)
            for _ in 0..<1000 {
                let px = Vec2(rng.uniform(0...640), rng.uniform(0...480))
                guard let bearing = camera.unproject(px) else {
                    Issue.record("unproject failed for \(model) at \(px)")
                    continue
                }
                let back = camera.project(bearing * rng.uniform(1...20))!
                #expect((back - px).norm < 1e-7)
            }
        }
        // COLMAP's fisheye, rational and field-of-view models on a wide lens (f 280 px on 640 × 480:
        // corners about 55° off the axis).
        let wide: [LensDistortion] = [
            .fullOpenCV(k1: -0.2, k2: 0.05, p1: 0.001, p2: -0.001, k3: 0.01, k4: 0.1, k5: -0.02, k6: 0.003),
            .openCVFisheye(k1: 0.05, k2: -0.01, k3: 0.002, k4: -0.0003), .fov(omega: 0.93),
            .simpleRadialFisheye(k: 0.03), .radialFisheye(k1: 0.03, k2: -0.004),
            .thinPrismFisheye(
                k1: 0.02, k2: -0.003, p1: 0.0004, p2: -0.0002, k3: 0.0001, k4: 0, sx1: 0.0003, sy1: -0.0001),
            .radTanThinPrismFisheye(coefficients: [
                0.03, -0.005, 0.001, -0.0002, 0.00003, 0, 0.0002, -0.0003, 0.0004, -0.0001, 0.0002, 0.0001,
            ]),
        ]
        for model in wide {
            let camera = Camera(fx: 280, fy: 281, cx: 320.5, cy: 239.5, width: 640, height: 480, distortion: model)
            for _ in 0..<1000 {
                let px = Vec2(rng.uniform(0...640), rng.uniform(0...480))
                guard let bearing = camera.unproject(px) else {
                    Issue.record("unproject failed for \(model) at \(px)")
                    continue
                }
                let back = camera.project(bearing * rng.uniform(1...20))!
                #expect((back - px).norm < 1e-7)
            }
        }
        // Centre of the top-left pixel and the principal point.
        let pinhole = Camera(fx: 500, fy: 500, cx: 320, cy: 240, width: 640, height: 480)
        #expect(pinhole.project(Vec3(0, 0, 2)) == Vec2(320, 240))
        #expect(pinhole.project(Vec3(0, 0, -1)) == nil)
        #expect(pinhole.project(Vec3(1, -0.5, 2)) == Vec2(570, 115))
        #expect(throws: Camera.ValidationError.badFocalLength) {
            try Camera(fx: .nan, fy: 1, cx: 0, cy: 0, width: 1, height: 1).validate()
        }
        #expect(throws: Camera.ValidationError.badImageSize) {
            try Camera(fx: 1, fy: 1, cx: 0, cy: 0, width: 0, height: 1).validate()
        }
    }

    /// Each model's projection of one point against its formula evaluated by hand (COLMAP's
    /// definitions), so a round trip of a wrong formula cannot pass.
    @Test func cameraModelsMatchTheirDefinitions() {
        let p = Vec3(0.6, -0.3, 1)  // u = 0.6, v = −0.3
        let u = 0.6, v = -0.3, r2 = 0.45, r = 0.45.squareRoot()
        let theta = atan(r), uu = u * theta / r, vv = v * theta / r, t2 = theta * theta
        func pixel(_ d: LensDistortion) -> Vec2 {
            Camera(fx: 300, fy: 310, cx: 320, cy: 240, width: 640, height: 480, distortion: d).project(p)!
        }
        func expectPixel(_ d: LensDistortion, _ x: Double, _ y: Double) {
            #expect((pixel(d) - Vec2(300 * x + 320, 310 * y + 240)).norm < 1e-9, "\(d)")
        }
        let rational = (1 - 0.2 * r2 + 0.05 * r2 * r2 + 0.01 * r2 * r2 * r2) / (1 + 0.1 * r2)
        expectPixel(
            .fullOpenCV(k1: -0.2, k2: 0.05, p1: 0.001, p2: -0.002, k3: 0.01, k4: 0.1, k5: 0, k6: 0),
            u * rational + 2 * 0.001 * u * v - 0.002 * (r2 + 2 * u * u),
            v * rational + 2 * -0.002 * u * v + 0.001 * (r2 + 2 * v * v))
        let fisheye = 1 + 0.05 * t2 - 0.01 * t2 * t2 + 0.002 * pow(t2, 3) - 0.0003 * pow(t2, 4)
        expectPixel(.openCVFisheye(k1: 0.05, k2: -0.01, k3: 0.002, k4: -0.0003), uu * fisheye, vv * fisheye)
        expectPixel(.simpleRadialFisheye(k: 0.03), uu * (1 + 0.03 * t2), vv * (1 + 0.03 * t2))
        expectPixel(
            .radialFisheye(k1: 0.03, k2: -0.004), uu * (1 + 0.03 * t2 - 0.004 * t2 * t2),
            vv * (1 + 0.03 * t2 - 0.004 * t2 * t2))
        let fov = atan(2 * r * tan(0.93 / 2)) / (r * 0.93)
        expectPixel(.fov(omega: 0.93), u * fov, v * fov)
        let prism = 1 + 0.02 * t2
        expectPixel(
            .thinPrismFisheye(k1: 0.02, k2: 0, p1: 0.0004, p2: -0.0002, k3: 0, k4: 0, sx1: 0.0003, sy1: -0.0001),
            uu * prism + 2 * 0.0004 * uu * vv - 0.0002 * (t2 + 2 * uu * uu) + 0.0003 * t2,
            vv * prism + 2 * -0.0002 * uu * vv + 0.0004 * (t2 + 2 * vv * vv) - 0.0001 * t2)
        // Fisheye624: radial in θ² on the equidistant coordinates, then tangential and thin prism on those.
        let radial = 1 + 0.4 * t2 - 0.5 * t2 * t2
        let x = uu * radial, y = vv * radial, s2 = x * x + y * y
        expectPixel(
            .radTanThinPrismFisheye(coefficients: [
                0.4, -0.5, 0, 0, 0, 0, 0.0002, -0.0003, 0.0004, -0.0001, 0.0002, 0.0001,
            ]),
            x + 2 * -0.0003 * x * y + 0.0002 * (s2 + 2 * x * x) + 0.0004 * s2 - 0.0001 * s2 * s2,
            y + 2 * 0.0002 * x * y - 0.0003 * (s2 + 2 * y * y) + 0.0002 * s2 + 0.0001 * s2 * s2)
        // Rays at or beyond 90° off the axis have no fisheye pixel to come from: a pixel that far out
        // does not unproject.
        let lens = Camera(
            fx: 100, fy: 100, cx: 320, cy: 240, width: 640, height: 480,
            distortion: .openCVFisheye(k1: 0, k2: 0, k3: 0, k4: 0))
        #expect(lens.unproject(Vec2(320 + 100 * 1.6, 240)) == nil)
        #expect(lens.unproject(Vec2(320 + 100 * 1.5, 240)) != nil)
    }

    @Test func matrixDecompositions() {
        var rng = SplitMix64(testName: "Conventions.svd")
        for _ in 0..<500 {
            let m = Mat3(rows: rng.vector(scale: 2), rng.vector(scale: 2), rng.vector(scale: 2))
            let svd = SVD3(m)
            let rebuilt = svd.u * Mat3.diagonal(svd.singularValues) * svd.v.transposed
            #expect((rebuilt - m).frobeniusNorm < 1e-8 * max(1, m.frobeniusNorm))
            #expect(svd.singularValues.x >= svd.singularValues.y && svd.singularValues.y >= svd.singularValues.z)
            let r = m.nearestRotation
            #expect(abs(r.determinant - 1) < 1e-9)
            #expect((r * r.transposed - .identity).frobeniusNorm < 1e-9)
            let sym = m + m.transposed
            let eig = SymmetricEigen3(sym)
            let back = eig.vectors * Mat3.diagonal(eig.values) * eig.vectors.transposed
            #expect((back - sym).frobeniusNorm < 1e-9 * max(1, sym.frobeniusNorm))
        }
        // Rank-deficient input.
        let rank1 = Mat3.outer(Vec3(1, 2, 3), Vec3(-1, 0, 2))
        let svd = SVD3(rank1)
        #expect(((svd.u * Mat3.diagonal(svd.singularValues) * svd.v.transposed) - rank1).frobeniusNorm < 1e-9)
    }
}
