/// How the delivered image must be turned to be upright (SPEC §4.2): the SDK turns it, its
/// intrinsics and its camera rotation exactly once (§4.3).
///
/// The names follow the interface orientations of a phone whose camera delivers landscape-right
/// images, as ARKit's `capturedImage` always does (``init(sensorImageFor:)``).
public enum FrameOrientation: String, Sendable, Equatable, CaseIterable {
    /// Upright after a 90° clockwise turn (a phone held upright).
    case portrait
    /// Upright as delivered (landscape with the phone's top to the left, home side right).
    case landscape
    /// Upright after a half turn (landscape with the phone's top to the right).
    case landscapeLeft
    /// Upright after a 90° counter-clockwise turn (a phone held upside down).
    case portraitUpsideDown

    /// Clockwise quarter turns that make the image upright: 1, 0, 2, 3.
    public var clockwiseQuarterTurns: Int {
        switch self {
        case .landscape: 0
        case .portrait: 1
        case .landscapeLeft: 2
        case .portraitUpsideDown: 3
        }
    }

    /// The orientation of a landscape-right sensor image (ARKit's `capturedImage`) while the interface
    /// is in `interface` orientation.
    public init(sensorImageFor interface: InterfaceOrientation) {
        switch interface {
        case .portrait: self = .portrait
        case .landscapeRight: self = .landscape
        case .landscapeLeft: self = .landscapeLeft
        case .portraitUpsideDown: self = .portraitUpsideDown
        }
    }
}

/// A user-interface orientation, as UIKit names them (`UIInterfaceOrientation`): `landscapeRight`
/// has the home side on the right.
public enum InterfaceOrientation: String, Sendable, Equatable, CaseIterable {
    /// Upright.
    case portrait
    /// Upside down.
    case portraitUpsideDown
    /// Landscape, home side left.
    case landscapeLeft
    /// Landscape, home side right (the camera sensor's own orientation).
    case landscapeRight
}
