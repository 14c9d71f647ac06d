import Testing
import VPSFeatures
import VPSGeometry
import VPSImaging

@testable import VPSSimulation

/// Features on rendered views of a synthetic venue, checked against the exact geometry.
@Suite struct RenderedFeatureTests {
    static let camera = Camera(fx: 500, fy: 500, cx: 320, cy: 240, width: 640, height: 480)
    static let venue = Venue.generate(.room, seed: 11, texelScale: 2)
    static let trajectory = Trajectory.generate(.walk, in: venue, duration: 20, seed: 11)

    static func view(at t: Double) -> (CameraPose, GrayImage) {
        let worldFromCV = CameraAxes.cvPose(fromARKit: trajectory.worldFromCamera(at: t))
        let pose = CameraPose(worldFromCV.inverse)
        return (pose, Renderer(venue: venue).render(camera: camera, camFromWorld: pose).gray)
    }

    @Test func orbFindsAtLeast500FeaturesOnEveryRenderedView() throws {
        let extractor = FeatureConfig.orb2000.makeExtractor()
        var counts: [Int] = []
        for t in stride(from: 0.0, through: 16, by: 4) {
            counts.append(try extractor.extract(from: Self.view(at: t).1).count)
        }
        print("ORB features on rendered 640×480 views: \(counts)")
        #expect(counts.allSatisfy { $0 >= 500 })
    }

    @Test func ratioTestMatchesAgreeWithTheTrueEpipolarGeometry() throws {
        let extractor = FeatureConfig.orb2000.makeExtractor()
        var consistent = 0
        var total = 0
        for t in [2.0, 7.0, 12.0] {
            let (a, imageA) = Self.view(at: t)
            let (b, imageB) = Self.view(at: t + 0.6)
            let fa = try extractor.extract(from: imageA), fb = try extractor.extract(from: imageB)
            let matches = try BruteForceMatcher.match(fa, fb, criteria: MatchCriteria(ratio: 0.8))
            // Essential matrix of the true relative pose camB_from_camA.
            let r = b.rotation * a.rotation.transposed
            let e = Mat3.skew(b.translation - r * a.translation) * r
            for m in matches {
                let ka = fa.keypoints[Int(m.query)], kb = fb.keypoints[Int(m.train)]
                let xa = Vec3((Double(ka.x) - 320) / 500, (Double(ka.y) - 240) / 500, 1)
                let xb = Vec3((Double(kb.x) - 320) / 500, (Double(kb.y) - 240) / 500, 1)
                let ea = e * xa, etb = e.transposed * xb
                let sampson = abs(xb.dot(ea)) / (ea.x * ea.x + ea.y * ea.y + etb.x * etb.x + etb.y * etb.y).squareRoot()
                if sampson * 500 < 2 { consistent += 1 }
                total += 1
            }
        }
        let share = Double(consistent) / Double(max(1, total))
        print("rendered-view matches within 2 px of the true epipolar lines: \(consistent)/\(total) = \(share)")
        #expect(total >= 300)
        #expect(share >= 0.9)
    }
}
