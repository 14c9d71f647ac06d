#include "CVBridge.h"

#include <opencv2/core.hpp>

const char *cvb_opencv_version(void) { return CV_VERSION; }
