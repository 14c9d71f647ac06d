// Implementation of CVBridge.h: ORB and SIFT extraction behind a C API.
//
// Every entry point runs its body inside `guarded`, which turns each C++ exception into a status
// code and a message. Results are built in a std::unique_ptr and released to the caller only once
// complete, so no path leaks.
#include "CVBridge.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/features2d.hpp>

struct cvb_features {
    std::vector<cvb_keypoint> keypoints;
    // One row per keypoint, continuous (checked before publishing).
    cv::Mat descriptors;
    cvb_descriptor_kind kind = CVB_DESCRIPTOR_BINARY256;
    int32_t descriptor_bytes = 0;
};

namespace {

// Fills `error` (when given) and returns `status`. Never throws.
cvb_status fail(cvb_error *error, cvb_status status, const char *message) noexcept {
    if (error != nullptr) {
        error->code = static_cast<int32_t>(status);
        std::snprintf(error->message, sizeof error->message, "%s", message != nullptr ? message : "");
    }
    return status;
}

// Runs `body` (returning cvb_status) and translates every exception into a status.
template <typename Body>
cvb_status guarded(cvb_error *error, Body &&body) noexcept {
    try {
        return body();
    } catch (const cv::Exception &e) {
        char message[CVB_ERROR_MESSAGE_CAPACITY];
        std::snprintf(message, sizeof message, "OpenCV error %d in %s: %s", e.code, e.func.c_str(),
                      e.err.c_str());
        return fail(error, CVB_ERROR_OPENCV, message);
    } catch (const std::bad_alloc &) {
        return fail(error, CVB_ERROR_OUT_OF_MEMORY, "out of memory");
    } catch (const std::exception &e) {
        return fail(error, CVB_ERROR_INTERNAL, e.what());
    } catch (...) {
        return fail(error, CVB_ERROR_INTERNAL, "unknown C++ exception");
    }
}

// Checks the image arguments shared by both extractors.
cvb_status check_image(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride,
                       cvb_error *error) noexcept {
    if (width < 0 || height < 0) {
        return fail(error, CVB_ERROR_INVALID_IMAGE, "image width and height must not be negative");
    }
    if (stride < width) {
        return fail(error, CVB_ERROR_INVALID_IMAGE, "image stride must be at least the width");
    }
    if (pixels == nullptr && width > 0 && height > 0) {
        return fail(error, CVB_ERROR_INVALID_IMAGE, "image pixels are NULL");
    }
    return CVB_OK;
}

// OpenCV packs SIFT's octave, layer and scale into KeyPoint::octave; the low byte is the signed
// octave (-1 for the upsampled first octave).
int32_t unpack_sift_octave(int packed) {
    const int octave = packed & 255;
    return octave < 128 ? octave : (-128 | octave);
}

// Maps OpenCV's reported keypoint position to the exact position in OpenCV's own convention
// (centre of the top-left pixel at (0, 0)); see CVBridge.h.
struct PositionFix {
    virtual ~PositionFix() = default;
    virtual cv::Point2f apply(const cv::KeyPoint &k) const = 0;
};

// ORB reports level-l positions as u * s_l, where u is the position in the level image and
// s_l = (float)scaleFactor^l. The level image has cvRound(W / s_l) columns resized from the full
// image with pixel-centre alignment, so the full-resolution position is (u + 0.5) * W / W_l - 0.5.
// The arithmetic mirrors OpenCV 4.6's ORB (float scale, cvRound of int / float).
struct OrbPositionFix final : PositionFix {
    int width, height;
    double scale_factor;
    int first_level;
    OrbPositionFix(int w, int h, float factor, int first)
        : width(w), height(h), scale_factor(static_cast<double>(factor)), first_level(first) {}
    cv::Point2f apply(const cv::KeyPoint &k) const override {
        // Level l is the image resized by scale_factor^(first_level - l) (upsampled below
        // first_level), with pixel-centre alignment either way.
        if (k.octave == first_level) {
            return k.pt;
        }
        const float scale = static_cast<float>(std::pow(scale_factor, static_cast<double>(k.octave - first_level)));
        const int level_width = cvRound(static_cast<float>(width) / scale);
        const int level_height = cvRound(static_cast<float>(height) / scale);
        if (level_width <= 0 || level_height <= 0) {
            return k.pt;
        }
        const double u = static_cast<double>(k.pt.x) / static_cast<double>(scale);
        const double v = static_cast<double>(k.pt.y) / static_cast<double>(scale);
        return cv::Point2f(static_cast<float>((u + 0.5) * width / level_width - 0.5),
                           static_cast<float>((v + 0.5) * height / level_height - 0.5));
    }
};

// SIFT builds its first octave by upsampling 2x with pixel-centre alignment (upsampled x' sees
// x'/2 - 1/4) and reports x'/2, i.e. 0.25 px too far right and down at every octave (later octaves
// decimate by exact even-pixel picking).
struct SiftPositionFix final : PositionFix {
    cv::Point2f apply(const cv::KeyPoint &k) const override { return cv::Point2f(k.pt.x - 0.25f, k.pt.y - 0.25f); }
};

// Runs `detector` on the image and builds a result. Caller has validated the arguments and
// checked that the image is not empty.
std::unique_ptr<cvb_features> detect(cv::Feature2D &detector, const PositionFix &fix, const uint8_t *pixels,
                                     int32_t width, int32_t height, int32_t stride, cvb_descriptor_kind kind) {
    // Wraps the caller's buffer without copying; OpenCV only reads it.
    const cv::Mat image(height, width, CV_8UC1, const_cast<uint8_t *>(pixels), static_cast<size_t>(stride));
    std::vector<cv::KeyPoint> keypoints;
    cv::Mat descriptors;
    detector.detectAndCompute(image, cv::noArray(), keypoints, descriptors);

    auto result = std::make_unique<cvb_features>();
    result->kind = kind;
    const int expected_type = kind == CVB_DESCRIPTOR_BINARY256 ? CV_8UC1 : CV_32FC1;
    const int expected_cols = kind == CVB_DESCRIPTOR_BINARY256 ? 32 : 128;
    result->descriptor_bytes = kind == CVB_DESCRIPTOR_BINARY256 ? 32 : 128 * static_cast<int32_t>(sizeof(float));
    if (keypoints.empty()) {
        return result;
    }
    if (descriptors.rows != static_cast<int>(keypoints.size()) || descriptors.cols != expected_cols ||
        descriptors.type() != expected_type) {
        throw std::runtime_error("OpenCV returned descriptors that do not match the keypoints");
    }
    result->descriptors = descriptors.isContinuous() ? descriptors : descriptors.clone();
    result->keypoints.reserve(keypoints.size());
    for (const cv::KeyPoint &k : keypoints) {
        const cv::Point2f position = fix.apply(k);
        cvb_keypoint out;
        out.x = position.x;
        out.y = position.y;
        out.size = k.size;
        out.angle = k.angle;
        out.response = k.response;
        out.octave = kind == CVB_DESCRIPTOR_BINARY256 ? static_cast<int32_t>(k.octave) : unpack_sift_octave(k.octave);
        result->keypoints.push_back(out);
    }
    return result;
}

// An empty result of the given kind.
std::unique_ptr<cvb_features> empty_result(cvb_descriptor_kind kind) {
    auto result = std::make_unique<cvb_features>();
    result->kind = kind;
    result->descriptor_bytes = kind == CVB_DESCRIPTOR_BINARY256 ? 32 : 128 * static_cast<int32_t>(sizeof(float));
    return result;
}

}  // namespace

extern "C" {

const char *cvb_opencv_version(void) { return CV_VERSION; }

void cvb_set_num_threads(int32_t threads) {
    try {
        cv::setNumThreads(threads);
    } catch (...) {
        // Nothing to report: the setting is advisory.
    }
}

int32_t cvb_get_num_threads(void) {
    try {
        return static_cast<int32_t>(cv::getNumThreads());
    } catch (...) {
        return 1;
    }
}

cvb_status cvb_extract_orb(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride,
                           const cvb_orb_params *params, cvb_features **out, cvb_error *error) {
    if (out == nullptr) {
        return fail(error, CVB_ERROR_INVALID_PARAMETER, "output pointer is NULL");
    }
    *out = nullptr;
    if (params == nullptr) {
        return fail(error, CVB_ERROR_INVALID_PARAMETER, "ORB parameters are NULL");
    }
    const cvb_status image_status = check_image(pixels, width, height, stride, error);
    if (image_status != CVB_OK) {
        return image_status;
    }
    const cvb_orb_params p = *params;
    if (p.nfeatures < 1) {
        return fail(error, CVB_ERROR_INVALID_PARAMETER, "ORB nfeatures must be at least 1");
    }
    if (!std::isfinite(p.scale_factor) || p.scale_factor <= 1.0f) {
        return fail(error, CVB_ERROR_INVALID_PARAMETER, "ORB scaleFactor must be finite and greater than 1");
    }
    if (p.nlevels < 1 || p.nlevels > 32) {
        return fail(error, CVB_ERROR_INVALID_PARAMETER, "ORB nlevels must be in 1...32");
    }
    if (p.edge_threshold < 0) {
        return fail(error, CVB_ERROR_INVALID_PARAMETER, "ORB edgeThreshold must not be negative");
    }
    if (p.fast_threshold < 0 || p.fast_threshold > 255) {
        return fail(error, CVB_ERROR_INVALID_PARAMETER, "ORB fastThreshold must be in 0...255");
    }
    if (p.patch_size < 2) {
        return fail(error, CVB_ERROR_INVALID_PARAMETER, "ORB patchSize must be at least 2");
    }
    if (p.first_level < 0 || p.first_level >= p.nlevels) {
        return fail(error, CVB_ERROR_INVALID_PARAMETER, "ORB firstLevel must be in 0...nlevels-1");
    }
    return guarded(error, [&]() -> cvb_status {
        // ORB keeps keypoints at least edgeThreshold pixels inside the full-resolution image, so a
        // smaller image has none (and OpenCV's pyramid may reject it).
        if (width == 0 || height == 0 || width <= 2 * p.edge_threshold || height <= 2 * p.edge_threshold) {
            *out = empty_result(CVB_DESCRIPTOR_BINARY256).release();
            return CVB_OK;
        }
        cv::Ptr<cv::ORB> orb = cv::ORB::create(p.nfeatures, p.scale_factor, p.nlevels, p.edge_threshold,
                                               p.first_level, /* WTA_K */ 2, cv::ORB::HARRIS_SCORE,
                                               p.patch_size, p.fast_threshold);
        const OrbPositionFix fix(width, height, p.scale_factor, p.first_level);
        *out = detect(*orb, fix, pixels, width, height, stride, CVB_DESCRIPTOR_BINARY256).release();
        return CVB_OK;
    });
}

cvb_status cvb_extract_sift(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride,
                            const cvb_sift_params *params, cvb_features **out, cvb_error *error) {
    if (out == nullptr) {
        return fail(error, CVB_ERROR_INVALID_PARAMETER, "output pointer is NULL");
    }
    *out = nullptr;
    if (params == nullptr) {
        return fail(error, CVB_ERROR_INVALID_PARAMETER, "SIFT parameters are NULL");
    }
    const cvb_status image_status = check_image(pixels, width, height, stride, error);
    if (image_status != CVB_OK) {
        return image_status;
    }
    const cvb_sift_params p = *params;
    if (p.nfeatures < 0) {
        return fail(error, CVB_ERROR_INVALID_PARAMETER, "SIFT nfeatures must not be negative");
    }
    if (p.n_octave_layers < 1) {
        return fail(error, CVB_ERROR_INVALID_PARAMETER, "SIFT nOctaveLayers must be at least 1");
    }
    if (!std::isfinite(p.contrast_threshold) || p.contrast_threshold < 0) {
        return fail(error, CVB_ERROR_INVALID_PARAMETER, "SIFT contrastThreshold must be finite and not negative");
    }
    if (!std::isfinite(p.edge_threshold) || p.edge_threshold <= 0) {
        return fail(error, CVB_ERROR_INVALID_PARAMETER, "SIFT edgeThreshold must be finite and positive");
    }
    if (!std::isfinite(p.sigma) || p.sigma <= 0) {
        return fail(error, CVB_ERROR_INVALID_PARAMETER, "SIFT sigma must be finite and positive");
    }
    return guarded(error, [&]() -> cvb_status {
        if (width == 0 || height == 0) {
            *out = empty_result(CVB_DESCRIPTOR_FLOAT128).release();
            return CVB_OK;
        }
        cv::Ptr<cv::SIFT> sift =
            cv::SIFT::create(p.nfeatures, p.n_octave_layers, p.contrast_threshold, p.edge_threshold, p.sigma);
        const SiftPositionFix fix;
        *out = detect(*sift, fix, pixels, width, height, stride, CVB_DESCRIPTOR_FLOAT128).release();
        return CVB_OK;
    });
}

int32_t cvb_features_count(const cvb_features *features) {
    return features == nullptr ? 0 : static_cast<int32_t>(features->keypoints.size());
}

cvb_descriptor_kind cvb_features_descriptor_kind(const cvb_features *features) {
    return features == nullptr ? CVB_DESCRIPTOR_BINARY256 : features->kind;
}

int32_t cvb_features_descriptor_bytes(const cvb_features *features) {
    return features == nullptr ? 0 : features->descriptor_bytes;
}

const cvb_keypoint *cvb_features_keypoints(const cvb_features *features) {
    if (features == nullptr || features->keypoints.empty()) {
        return nullptr;
    }
    return features->keypoints.data();
}

const void *cvb_features_descriptors(const cvb_features *features) {
    if (features == nullptr || features->keypoints.empty()) {
        return nullptr;
    }
    return features->descriptors.ptr();
}

void cvb_features_free(cvb_features *features) { delete features; }

cvb_status cvb_debug_raise(int32_t kind, cvb_error *error) {
    return guarded(error, [kind]() -> cvb_status {
        switch (kind) {
        case 1:
            CV_Error(cv::Error::StsBadArg, "raised by cvb_debug_raise");
        case 2:
            throw std::bad_alloc();
        case 3:
            throw std::runtime_error("raised by cvb_debug_raise");
        case 4:
            throw 42;
        default:
            return CVB_OK;
        }
    });
}

}  // extern "C"
