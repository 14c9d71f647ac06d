import VPSGeometry
import VPSImaging
import VPSMap
import VPSSimulation

/// Maps of synthetic venues as a phone scan would give them, shared by tests and benchmarks.
public enum SimulatedScanMap {
    /// A room's map from a 120-frame, 1280 × 960 scan with exact poses and phone blur and noise on
    /// the images (the setting of the localizer's accuracy floors and of `bench localize`).
    public static func room(seed: UInt64, code: String) throws -> MapData {
        let venue = Venue.generate(.room, seed: seed)
        let scanCamera = Camera(fx: 1000, fy: 1000, cx: 640, cy: 480, width: 1280, height: 960)
        let scan = Trajectory.generate(.scan, in: venue, seed: seed)
        var configuration = ARSessionConfiguration.ideal(camera: scanCamera, frameInterval: scan.duration / 119)
        configuration.sensor = .phone
        var session = ARSessionSimulator(venue: venue, trajectory: scan, configuration: configuration, seed: seed)
        var frames: [MappingFrame] = []
        var images: [RGBImage] = []
        while let f = session.next(), let image = f.image {
            let pose = CameraPose(CameraAxes.cvPose(fromARKit: f.trueWorldFromCamera).inverse)
            frames.append(MappingFrame(name: "f\(frames.count)", camera: scanCamera, camFromMap: pose))
            images.append(image)
        }
        let frozen = images
        return try MapBuilder.build(frames: frames, loadImage: { frozen[$0] }, code: code, name: "room").0
    }
}
