import MultiSetCommandLine
import VPSFeatures

/// `--features NAME`: the local features a map is built with (queries then use the same):
/// `orb` (default, `orb-2000-v1`: fast), `sift` (`sift-2000-v1`), `rootsift` (`sift-2000-root-v1`:
/// slower, sub-pixel keypoints, the most accurate), or any feature identifier (`orb-4000-v1`).
enum FeatureFlag {
    static let usage = """
          --features orb|sift|rootsift|ID   local features of the map (default orb = orb-2000-v1; rootsift =
                             sift-2000-root-v1: about 10× slower to extract, several times more accurate)
        """

    /// The config named by `--features`, or `orb2000` when absent.
    static func parse(_ args: inout Arguments) throws -> FeatureConfig {
        guard let name = args.string("features") else { return .orb2000 }
        switch name {
        case "orb": return .orb2000
        case "sift": return .sift(SIFTParameters(maxFeatures: 2000))
        case "rootsift": return .rootSIFT2000
        default:
            do { return try FeatureConfig(identifier: name) } catch {
                throw UsageError("--features takes orb, sift, rootsift or a feature identifier such as orb-2000-v1")
            }
        }
    }
}
