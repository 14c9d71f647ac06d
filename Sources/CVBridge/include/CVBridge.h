#ifndef CVBRIDGE_H
#define CVBRIDGE_H
/* Plain C API over OpenCV's features2d, for Swift. */
#ifdef __cplusplus
extern "C" {
#endif

/* Returns the OpenCV version string (for diagnostics). */
const char *cvb_opencv_version(void);

#ifdef __cplusplus
}
#endif
#endif
