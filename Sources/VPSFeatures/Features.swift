import CVBridge
import VPSImaging

/// The OpenCV version the feature extractors run on.
public var openCVVersion: String { String(cString: cvb_opencv_version()) }
