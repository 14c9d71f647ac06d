import Foundation
import VPSGeometry

/// Recorded 2D–3D correspondences of a real query image with its true pose and camera
/// (`Tests/Fixtures/real/*-matches.txt`: a truth row qw qx qy qz tx ty tz, a camera row fx fy cx cy
/// width height, then one row per match: pixel x y, map point x y z, keypoint scale; `#` comments).
public struct RecordedPnP: Sendable {
    /// Tests/Fixtures/real, beside this package's test targets.
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/real")
    /// entry-P10's 0006.jpg against a map of every second image: the true pose and poses 12–19 m
    /// along the façade's repeated bays explain 56 and 45–47 of its 323 matches.
    public static let entryP10Facade = directory.appendingPathComponent("entry-P10-0006-half-matches.txt")
    /// fountain-P11's 0010.jpg: the true pose and a mirror pose 6.3 m and 79° away explain 49 and 46
    /// of its 90 matches.
    public static let fountainMirror = directory.appendingPathComponent("fountain-P11-0010-matches.txt")
    /// The query image's camera.
    public var camera: Camera
    /// The image's true `camFromWorld`.
    public var truth: CameraPose
    /// Each match's query keypoint, pixels.
    public var pixels: [Vec2] = []
    /// Each match's map point, world frame.
    public var points: [Vec3] = []
    /// Each match's keypoint scale (its position noise relative to the finest level).
    public var sigmas: [Double] = []

    /// Reads a recorded-matches file.
    public init(contentsOf url: URL) throws {
        let rows = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("#") && !$0.isEmpty }
            .map { $0.split(separator: " ").map { Double($0)! } }
        let t = rows[0]
        truth = CameraPose(
            Rigid3(rotation: Quaternion(x: t[1], y: t[2], z: t[3], w: t[0]), translation: Vec3(t[4], t[5], t[6])))
        let c = rows[1]
        camera = Camera(fx: c[0], fy: c[1], cx: c[2], cy: c[3], width: Int(c[4]), height: Int(c[5]))
        for r in rows.dropFirst(2) {
            pixels.append(Vec2(r[0], r[1]))
            points.append(Vec3(r[2], r[3], r[4]))
            sigmas.append(r[5])
        }
    }
}
