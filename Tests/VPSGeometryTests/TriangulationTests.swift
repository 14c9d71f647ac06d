import Testing
import VPSTestSupport

@testable import VPSGeometry

@Suite struct TriangulationTests {
    @Test func exactOnNoiseFreeViews() {
        var rng = SplitMix64(testName: "Triangulation.exact")
        for _ in 0..<2000 {
            let point = rng.vector(scale: 3)
            var obs: [TriangulationObservation] = []
            for _ in 0..<(2 + rng.nextInt(below: 4)) {
                // A camera 2–8 m from the point looking roughly at it.
                let center = point + rng.unitVector() * rng.uniform(2...8)
                let forward = (point - center).normalized + rng.vector(scale: 0.1)
                let r = rotationTaking(forward.normalized, to: Vec3(0, 0, 1))
                let pose = CameraPose(rotation: r, translation: -(r * center))
                let p = pose.transform(point)
                obs.append(TriangulationObservation(camFromWorld: pose, normalized: Vec2(p.x / p.z, p.y / p.z)))
            }
            guard let x = triangulatePoint(obs) else {
                Issue.record("no point")
                continue
            }
            #expect((x - point).norm < 1e-9 * max(1, point.norm))
        }
    }

    @Test func noisyViewsLandNearTheTruthAndDegenerateInputFails() {
        var rng = SplitMix64(testName: "Triangulation.noisy")
        var errors: [Double] = []
        for _ in 0..<500 {
            let point = Vec3(rng.uniform(-1...1), rng.uniform(-1...1), rng.uniform(4...6))
            var obs: [TriangulationObservation] = []
            for k in 0..<3 {
                let center = Vec3(Double(k) * 0.5, 0, 0)
                let pose = CameraPose(rotation: .identity, translation: -center)
                let p = pose.transform(point)
                obs.append(
                    TriangulationObservation(
                        camFromWorld: pose,
                        normalized: Vec2(p.x / p.z, p.y / p.z) + Vec2(rng.gaussian(), rng.gaussian()) / 500))
            }
            if let x = triangulatePoint(obs) { errors.append((x - point).norm) }
        }
        errors.sort()
        #expect(errors.count == 500)
        // Depth error ≈ z² σ / (b f) = 25 · 1 / (1 · 500) = 5 cm for 1 px noise; lateral error is far smaller.
        #expect(errors[250] < 0.08)
        // One view, identical rays, behind the camera.
        let pose = CameraPose.identity
        #expect(triangulatePoint([TriangulationObservation(camFromWorld: pose, normalized: .zero)]) == nil)
        let same = TriangulationObservation(camFromWorld: pose, normalized: Vec2(0.1, 0))
        #expect(triangulatePoint([same, same]) == nil)
        let behind = [
            TriangulationObservation(camFromWorld: pose, normalized: Vec2(0.1, 0)),
            TriangulationObservation(
                camFromWorld: CameraPose(rotation: .identity, translation: Vec3(-1, 0, 0)), normalized: Vec2(0.3, 0)),
        ]
        #expect(triangulatePoint(behind) == nil)
        #expect(
            abs(maximumTriangulationAngle(point: Vec3(0, 0, 1), centers: [Vec3(-1, 0, 0), Vec3(1, 0, 0)]) - .pi / 2)
                < 1e-12)
    }
}
