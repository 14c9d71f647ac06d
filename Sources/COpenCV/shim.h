/* OpenCV is C++; this module only carries its pkg-config flags (include path and libraries) to
   the CVBridge target, which exposes a plain C API. */
