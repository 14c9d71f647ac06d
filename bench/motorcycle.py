"""Export the Middlebury 2014 "Motorcycle" stereo pair that scikit-image ships, for `multiset eval-stereo`.

Writes into --out:
  left.png, right.png   the rectified pair (RGB, 741 x 500)
  left-depth.pfm        depth of the left view: camera-frame Z in metres, float32 PFM; 0 where the
                        ground truth has no disparity
  calib.json            intrinsics of both views (pixel centre at +0.5, the project's Camera convention),
                        the baseline, and the true right-from-left pose (computer-vision camera axes)

Calibration: the `skimage.data.stereo_motorcycle` docstring (scikit-image 0.26.0) gives the values
valid for its images, which are the benchmark's default-exposure images downscaled by 4 with
`skimage.transform.downscale_local_mean`:
  focal length 994.978 px, principal point (311.193, 254.877) px, principal point dx (doffs) 31.086 px,
  baseline 193.001 mm.
They are the original Middlebury calib.txt values divided by 4 (cam0 fx 3979.911, cx 1244.772,
cy 1019.507, doffs 124.343, baseline 193.001 mm). Middlebury's principal point counts from the centre of
the first pixel; a 4x block average puts the small image's pixel k at original 4k + 1.5, so in the
project's convention (first pixel's centre at 0.5) cx = (1244.772 + 0.5) / 4 = 311.193 + 0.125, same for cy.

Disparity d (left x minus right x, inf where unknown) gives depth Z = f * B / (d + doffs). The pair is
rectified: both cameras share orientation and the right camera sits B metres along the left camera's
+X, so camRightFromLeft = (R = I, t = (-B, 0, 0)); the right camera's cx is the left's plus doffs.
"""

import argparse
import json
import os

import numpy as np
from skimage import data, io

FOCAL = 994.978
CX, CY = 311.193, 254.877
DOFFS = 31.086
BASELINE_M = 0.193001
DOWNSCALE = 4
# Shift of the principal point into the Camera convention (see the docstring), small pixels.
CENTRE_SHIFT = 0.5 / DOWNSCALE


def write_pfm(path, values):
    """Single-channel little-endian PFM (rows stored bottom to top, as the format says)."""
    height, width = values.shape
    with open(path, "wb") as f:
        f.write(b"Pf\n%d %d\n-1.0\n" % (width, height))
        f.write(np.ascontiguousarray(values[::-1], dtype="<f4").tobytes())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    left, right, disparity = data.stereo_motorcycle()
    height, width = disparity.shape
    with np.errstate(divide="ignore", invalid="ignore"):
        depth = FOCAL * BASELINE_M / (disparity.astype(np.float64) + DOFFS)
    depth[~np.isfinite(depth) | (depth <= 0)] = 0

    io.imsave(os.path.join(args.out, "left.png"), left, check_contrast=False)
    io.imsave(os.path.join(args.out, "right.png"), right, check_contrast=False)
    write_pfm(os.path.join(args.out, "left-depth.pfm"), depth.astype(np.float32))

    def intrinsics(cx):
        return {"fx": FOCAL, "fy": FOCAL, "cx": cx + CENTRE_SHIFT, "cy": CY + CENTRE_SHIFT,
                "width": width, "height": height}

    calib = {
        "source": "scikit-image 0.26.0 skimage.data.stereo_motorcycle (Middlebury 2014 Motorcycle, downscaled x4)",
        "left": intrinsics(CX),
        "right": intrinsics(CX + DOFFS),
        "baseline_m": BASELINE_M,
        "doffs_px": DOFFS,
        "right_from_left": {
            "rotation": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
            "translation": [-BASELINE_M, 0, 0],
        },
    }
    with open(os.path.join(args.out, "calib.json"), "w") as f:
        json.dump(calib, f, indent=2)
    valid = depth > 0
    print(f"motorcycle: {width}x{height}, depth known at {valid.mean():.1%} of pixels, "
          f"{depth[valid].min():.3f} to {depth[valid].max():.3f} m -> {args.out}")


if __name__ == "__main__":
    main()
