/// Errors of map building.
public enum MapBuildError: Error, Sendable, CustomStringConvertible {
    case noFrames
    case captures(String)
    case image(String)
    /// A frame's image is not the size its camera describes (name, image width × height, camera
    /// width × height): keypoints would be read in the wrong pixel frame.
    case imageSize(name: String, image: (width: Int, height: Int), camera: (width: Int, height: Int))
    case features(String)
    case tooFewPoints(Int)
    /// Points were triangulated, but too few frames see enough of them for queries there to
    /// localize: (frames covered, frames, the funnel of the build).
    case tooThin(covered: Int, frames: Int, funnel: MapBuildFunnel)

    /// Stable code.
    public var code: String {
        switch self {
        case .noFrames: return "MAP_BUILD_NO_FRAMES"
        case .captures: return "MAP_BUILD_INVALID_CAPTURES"
        case .image: return "MAP_BUILD_IMAGE"
        case .imageSize: return "MAP_BUILD_IMAGE_SIZE"
        case .features: return "MAP_BUILD_FEATURES"
        case .tooFewPoints: return "MAP_BUILD_TOO_FEW_POINTS"
        case .tooThin: return "MAP_BUILD_TOO_THIN"
        }
    }

    public var description: String {
        switch self {
        case .noFrames: return "no usable frames (every frame was skipped or the capture is empty)"
        case .captures(let m): return "invalid capture dataset: \(m)"
        case .image(let m): return "cannot read an image: \(m)"
        case .imageSize(let name, let image, let camera):
            let scale = Double(image.width) / Double(camera.width)
            let sameShape = abs(Double(image.height) / Double(camera.height) - scale) < 0.01 * scale
            return "\(name) is \(image.width)×\(image.height) pixels but its camera is \(camera.width)×\(camera.height)"
                + (sameShape
                    ? String(format: " (the same picture scaled by %.3g?)", scale)
                        + ": give the images the cameras were calibrated on, or cameras for these images"
                    : ": the image and its camera do not belong together")
        case .features(let m): return "feature extraction failed: \(m)"
        case .tooFewPoints(let n):
            return "only \(n) points could be triangulated; the captures need more overlap or texture"
        case .tooThin(let covered, let frames, let funnel):
            return "the map is too thin to localize in: only \(covered) of \(frames) frames see "
                + "\(MapBuildOptions().minPointsPerFrame) or more of its \(funnel.points) points. "
                + Self.reason(funnel)
        }
    }

    /// The stage that lost the most, in words.
    static func reason(_ f: MapBuildFunnel) -> String {
        if f.candidatePairs == 0 {
            return "No two images overlap enough to match (add images between the views)."
        }
        if f.verifiedMatches < f.matches / 4 {
            return "Most matches (\(f.matches - f.verifiedMatches) of \(f.matches)) disagree with the given poses: "
                + "check the poses and intrinsics."
        }
        let drops = [
            ("reprojection", f.droppedReprojection), ("triangulation angle", f.droppedAngle),
            ("depth", f.droppedDepth), ("uncertainty", f.droppedUncertainty),
        ]
        let worst = drops.max { $0.1 < $1.1 }!
        return "Of \(f.tracks) tracks, the \(worst.0) filter dropped the most (\(worst.1)); "
            + "the images need more overlap or texture."
    }
}
