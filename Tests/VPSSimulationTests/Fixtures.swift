import VPSGeometry
import VPSImaging
import VPSSimulation

/// Venues and cameras shared by the suites, built once (coarse textures keep debug builds fast).
enum Fixtures {
    static let room = Venue.generate(.room, seed: 7, texelScale: 4)
    static let corridor = Venue.generate(.corridor, seed: 3, texelScale: 6)
    static let aliasing = Venue.generate(.aliasing, seed: 11, texelScale: 4)
    static let object = Venue.generate(.object, seed: 5, texelScale: 4)

    /// 160 × 120 with the field of view of the 640 × 480 default.
    static let smallCamera = Camera(fx: 125, fy: 125, cx: 80, cy: 60, width: 160, height: 120)

    /// A CV `camFromWorld` for an ARKit-style pose given by position, yaw and pitch (radians).
    static func camFromWorld(at position: Vec3, yaw: Double, pitch: Double = 0) -> CameraPose {
        let worldFromARKit = Rigid3(
            rotation: Trajectory.orientation(yaw: yaw, pitch: pitch, roll: 0), translation: position)
        return CameraPose(CameraAxes.cvPose(fromARKit: worldFromARKit).inverse)
    }

    /// A `camFromWorld` whose camera at `eye` looks at `target` (CV axes, +Y of the image down).
    static func lookAt(_ target: Vec3, from eye: Vec3, up: Vec3 = Vec3(0, 1, 0)) -> CameraPose {
        let z = (target - eye).normalized
        let x = (-up).cross(z).normalized
        let y = z.cross(x)
        let rotation = Mat3(rows: x, y, z)
        return CameraPose(rotation: rotation, translation: -(rotation * eye))
    }

    /// Mean absolute difference of two images' bytes and the fraction of identical bytes.
    static func compare(_ a: RGBImage, _ b: RGBImage) -> (meanAbsolute: Double, identical: Double) {
        precondition(a.pixels.count == b.pixels.count)
        var sum = 0, same = 0
        for i in 0..<a.pixels.count {
            let d = abs(Int(a.pixels[i]) - Int(b.pixels[i]))
            sum += d
            if d == 0 { same += 1 }
        }
        return (Double(sum) / Double(a.pixels.count), Double(same) / Double(a.pixels.count))
    }
}
