import CVBridge

/// The OpenCV library the extractors run on, and its process-wide settings.
///
/// The engine links the system's OpenCV (Debian's 4.6 today) through `CVBridge`, a plain C API.
public enum OpenCVRuntime {
    /// The OpenCV version string, e.g. "4.6.0".
    public static var version: String { String(cString: cvb_opencv_version()) }

    /// The number of threads OpenCV's internal parallel loops may use.
    ///
    /// Process-wide. Extraction stays safe to call from several threads whatever the value; set it
    /// to 1 when the caller parallelizes over images itself, or to measure single-threaded speed.
    public static var threadCount: Int {
        get { Int(cvb_get_num_threads()) }
        set { cvb_set_num_threads(Int32(clamping: newValue)) }
    }
}

/// The OpenCV version the feature extractors run on (same as `OpenCVRuntime.version`).
public var openCVVersion: String { OpenCVRuntime.version }
