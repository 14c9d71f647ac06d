#ifndef CVBRIDGE_H
#define CVBRIDGE_H
/*
 * Plain C API over OpenCV's features2d, for Swift.
 *
 * Conventions:
 * - Every function that can fail returns a cvb_status and, when `error` is not NULL, fills it with
 *   the same code and a NUL-terminated message. No C++ exception ever crosses this API.
 * - Extraction returns an owned cvb_features handle: read it through the accessors, then release
 *   it exactly once with cvb_features_free (NULL is accepted). Pointers returned by the accessors
 *   stay valid until then.
 * - Keypoint coordinates use OpenCV's convention (the centre of the top-left pixel is (0, 0)) and
 *   are exact in it: the bridge removes two offsets OpenCV 4.6 leaves in its reported positions.
 *   ORB scales level-l positions by scaleFactor^l, ignoring the half-pixel alignment and the
 *   rounded size of the level image (up to ~1.5 px off at coarse levels); SIFT's upsampled first
 *   octave shifts every position by +0.25 px.
 * - Every function may be called from several threads at once: extractors are created per call
 *   and no state is shared between calls (cvb_set_num_threads changes a process-wide setting).
 */
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes (stable; mirrored by FeaturesError in Swift). */
typedef enum {
    CVB_OK = 0,
    /* An image argument is unusable (NULL pixels, negative size, stride smaller than the width). */
    CVB_ERROR_INVALID_IMAGE = 1,
    /* A detector parameter is out of its documented range. */
    CVB_ERROR_INVALID_PARAMETER = 2,
    /* OpenCV raised cv::Exception. */
    CVB_ERROR_OPENCV = 3,
    /* An allocation failed (std::bad_alloc). */
    CVB_ERROR_OUT_OF_MEMORY = 4,
    /* Any other C++ exception, or an inconsistent OpenCV result. */
    CVB_ERROR_INTERNAL = 5
} cvb_status;

/* Size of cvb_error.message, including the terminating NUL. */
#define CVB_ERROR_MESSAGE_CAPACITY 512

/* Error details filled by a failing call (left untouched on success). */
typedef struct {
    int32_t code;
    char message[CVB_ERROR_MESSAGE_CAPACITY];
} cvb_error;

/* A keypoint as OpenCV reports it. */
typedef struct {
    /* Position in full-resolution pixels, OpenCV convention (centre of the top-left pixel is
       (0, 0)), corrected as described at the top. */
    float x, y;
    /* Diameter of the meaningful neighbourhood, pixels. */
    float size;
    /* Orientation in degrees, [0, 360), clockwise in image coordinates (y down); -1 if none. */
    float angle;
    /* Detector response (strength). */
    float response;
    /* Pyramid octave: ORB's level (0 = full resolution); SIFT's octave unpacked from OpenCV's
       packed field (-1 = the upsampled first octave). */
    int32_t octave;
} cvb_keypoint;

/* Kind of descriptors a cvb_features holds. */
typedef enum {
    /* 32 bytes per descriptor (256 bits), ORB. */
    CVB_DESCRIPTOR_BINARY256 = 1,
    /* 128 floats per descriptor, SIFT. */
    CVB_DESCRIPTOR_FLOAT128 = 2
} cvb_descriptor_kind;

/* ORB parameters (Rublee et al., ICCV 2011); names follow cv::ORB::create. WTA_K = 2 and the Harris
   score are fixed. Levels below first_level are the image upsampled (by scale_factor per level), so
   their keypoints are found on a finer grid than the image's pixels. */
typedef struct {
    int32_t nfeatures;      /* >= 1 */
    float scale_factor;     /* > 1, finite */
    int32_t nlevels;        /* 1 ... 32 */
    int32_t edge_threshold; /* >= 0 */
    int32_t fast_threshold; /* 0 ... 255 */
    int32_t patch_size;     /* >= 2 */
    int32_t first_level;    /* 0 ... nlevels - 1 */
} cvb_orb_params;

/* SIFT parameters (Lowe, IJCV 2004); names follow cv::SIFT::create. Descriptors are CV_32F. */
typedef struct {
    int32_t nfeatures;         /* >= 0; 0 keeps every feature */
    int32_t n_octave_layers;   /* >= 1 */
    double contrast_threshold; /* >= 0, finite */
    double edge_threshold;     /* > 0, finite */
    double sigma;              /* > 0, finite */
} cvb_sift_params;

/* Opaque extraction result: keypoints and their descriptors, in one contiguous buffer each. */
typedef struct cvb_features cvb_features;

/* Returns the OpenCV version string (for diagnostics). Static storage; never freed. */
const char *cvb_opencv_version(void);

/* Sets the number of threads OpenCV's parallel loops may use (process-wide; 1 = serial,
   negative = OpenCV's default). */
void cvb_set_num_threads(int32_t threads);

/* Number of threads OpenCV's parallel loops currently use. */
int32_t cvb_get_num_threads(void);

/*
 * Detects ORB keypoints and computes their descriptors on an 8-bit gray image.
 *
 * `pixels` holds `height` rows of `width` bytes each, `stride` bytes apart (stride >= width).
 * An image with a zero side, or too small for the detector's border, yields an empty result.
 * On success `*out` receives a handle the caller must free; on failure `*out` is set to NULL.
 */
cvb_status cvb_extract_orb(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride,
                           const cvb_orb_params *params, cvb_features **out, cvb_error *error);

/* Detects SIFT keypoints and computes their descriptors; same contract as cvb_extract_orb. */
cvb_status cvb_extract_sift(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride,
                            const cvb_sift_params *params, cvb_features **out, cvb_error *error);

/* Number of keypoints (and descriptors) in `features`; 0 for NULL. */
int32_t cvb_features_count(const cvb_features *features);

/* Kind of the descriptors in `features`. */
cvb_descriptor_kind cvb_features_descriptor_kind(const cvb_features *features);

/* Bytes per descriptor: 32 for ORB, 512 for SIFT. */
int32_t cvb_features_descriptor_bytes(const cvb_features *features);

/* The keypoints, `count` of them (NULL when empty). */
const cvb_keypoint *cvb_features_keypoints(const cvb_features *features);

/* The descriptors, `count * descriptor_bytes` contiguous bytes, row i for keypoint i (NULL when
   empty). ORB rows are OpenCV's bytes; SIFT rows are 128 native-endian floats. */
const void *cvb_features_descriptors(const cvb_features *features);

/* Releases a result. Accepts NULL. */
void cvb_features_free(cvb_features *features);

/* Test hook: raises inside the bridge's exception guard and returns the translated status.
   kind: 0 none (CVB_OK), 1 cv::Exception, 2 std::bad_alloc, 3 std::runtime_error, 4 a non-std
   exception. */
cvb_status cvb_debug_raise(int32_t kind, cvb_error *error);

#ifdef __cplusplus
}
#endif
#endif
