#!/usr/bin/env python3
"""Run reference absolute-pose solvers on the benchmark sets written by ``generate.py``.

Methods (all single-threaded, library defaults unless stated):

* ``poselib``        ``poselib.estimate_absolute_pose(p2d, p3d, camera_dict)``, default
                     ransac/bundle options.
* ``poselib-tuned``  same with ransac option ``min_iterations = K`` (``--min-iterations``).
* ``pycolmap``       ``pycolmap.estimate_and_refine_absolute_pose(p2d, p3d, camera)`` with a
                     PINHOLE ``pycolmap.Camera`` and default estimation/refinement options.
* ``opencv-p3p``     ``cv2.solvePnPRansac(p3d, p2d, K, None, flags=cv2.SOLVEPNP_P3P)`` with
                     OpenCV's defaults (iterationsCount 100, reprojectionError 8.0,
                     confidence 0.99).
* ``opencv-usac``    ``cv2.solvePnPRansac(p3d, p2d, K, None, iterationsCount=5000,
                     flags=cv2.USAC_MAGSAC)``: the USAC framework with OpenCV's MAGSAC preset
                     (uniform sampler, MAGSAC++ score, sigma-consensus LO). Threshold (8.0)
                     and confidence (0.99) keep the solvePnPRansac defaults; the iteration cap
                     is USAC's own default (``cv2.UsacParams().maxIterations`` = 5000) because
                     the legacy default of 100 caps MAGSAC far below what 90 % outliers need.
                     OpenCV 5.0 also has the overload ``solvePnPRansac(p3d, p2d, K, dist,
                     params=cv2.UsacParams())`` -> (ok, K, rvec, tvec, inliers); its defaults
                     are MSAC scoring and a 1.5 px threshold, so it is not used here.

Only the estimation call is timed (``time.perf_counter``). Output: a JSON list of
``{"method", "outliers", "sets": [{"ms", "rot_deg", "pos_m", "success"}, ...]}``.
"""

from __future__ import annotations

import os

for _var in (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Callable  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402
import poselib  # noqa: E402
import pycolmap  # noqa: E402

from generate import RATIOS, CorrespondenceSet, read_sets, sets_filename  # noqa: E402

cv2.setNumThreads(1)

SUCCESS_ROT_DEG = 1.0
SUCCESS_POS_M = 0.05
JSON_INF = 1e9
# USAC's own default iteration cap (cv2.UsacParams().maxIterations), used for opencv-usac.
USAC_MAX_ITERATIONS = 5000

# A solver takes prepared inputs and returns (R, t) camFromWorld, or None on failure.
Pose = tuple[np.ndarray, np.ndarray] | None
Prepared = tuple[Callable[[], object], Callable[[object], Pose]]


def prepare_poselib(s: CorrespondenceSet, ransac_opt: dict) -> Prepared:
    """PoseLib with a PINHOLE camera dict and the given ransac options."""
    fx, fy, cx, cy = s.intrinsics
    camera = {"model": "PINHOLE", "width": s.size[0], "height": s.size[1],
              "params": [fx, fy, cx, cy]}
    p2d, p3d = s.points2d, s.points3d

    def run():
        return poselib.estimate_absolute_pose(p2d, p3d, camera, ransac_opt, {})

    def decode(result) -> Pose:
        pose, info = result
        if info.get("num_inliers", 0) < 3:
            return None
        return np.asarray(pose.R), np.asarray(pose.t)

    return run, decode


def prepare_pycolmap(s: CorrespondenceSet) -> Prepared:
    """pycolmap LO-RANSAC + refinement with a PINHOLE camera and default options."""
    fx, fy, cx, cy = s.intrinsics
    camera = pycolmap.Camera(model="PINHOLE", width=s.size[0], height=s.size[1],
                             params=[fx, fy, cx, cy])
    p2d, p3d = s.points2d, s.points3d

    def run():
        return pycolmap.estimate_and_refine_absolute_pose(p2d, p3d, camera)

    def decode(result) -> Pose:
        if result is None:
            return None
        cam_from_world = result["cam_from_world"]
        return cam_from_world.rotation.matrix(), np.asarray(cam_from_world.translation)

    return run, decode


def prepare_opencv(s: CorrespondenceSet, flags: int, **options) -> Prepared:
    """cv2.solvePnPRansac with the given flags, defaults for everything not in ``options``."""
    fx, fy, cx, cy = s.intrinsics
    K = np.array([[fx, 0.0, cx], [0.0, fy, cy], [0.0, 0.0, 1.0]])
    p2d, p3d = s.points2d, s.points3d

    def run():
        # distCoeffs None = zero distortion.
        return cv2.solvePnPRansac(p3d, p2d, K, None, flags=flags, **options)

    def decode(result) -> Pose:
        ok, rvec, tvec, _inliers = result
        if not ok or rvec is None or tvec is None:
            return None
        return cv2.Rodrigues(rvec)[0], np.asarray(tvec).reshape(3)

    return run, decode


def make_methods(min_iterations: int) -> dict[str, Callable[[CorrespondenceSet], Prepared]]:
    """Method name -> function preparing a solver call for one set."""
    return {
        "poselib": lambda s: prepare_poselib(s, {}),
        "poselib-tuned": lambda s: prepare_poselib(s, {"min_iterations": min_iterations}),
        "pycolmap": prepare_pycolmap,
        "opencv-p3p": lambda s: prepare_opencv(s, cv2.SOLVEPNP_P3P),
        "opencv-usac": lambda s: prepare_opencv(
            s, cv2.USAC_MAGSAC, iterationsCount=USAC_MAX_ITERATIONS
        ),
    }


def pose_errors(R_est: np.ndarray, t_est: np.ndarray, R_true: np.ndarray,
                t_true: np.ndarray) -> tuple[float, float]:
    """Rotation error (deg, angle of R_est R_true^T) and camera-centre distance (m)."""
    cos = (np.trace(R_est @ R_true.T) - 1.0) / 2.0
    rot = float(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))))
    pos = float(np.linalg.norm(R_est.T @ t_est - R_true.T @ t_true))
    return rot, pos


def evaluate(prepare: Callable[[CorrespondenceSet], Prepared], s: CorrespondenceSet) -> dict:
    """Runs one method on one set: timing, errors and success flag."""
    run, decode = prepare(s)
    start = time.perf_counter()
    try:
        result = run()
    except (cv2.error, RuntimeError, ValueError) as error:
        print(f"    set {s.index}: solver raised {error!r}", file=sys.stderr)
        result = None
    ms = (time.perf_counter() - start) * 1000.0
    pose = decode(result) if result is not None else None
    if pose is None or not np.all(np.isfinite(pose[0])) or not np.all(np.isfinite(pose[1])):
        rot, pos = 180.0, float("inf")
    else:
        rot, pos = pose_errors(pose[0], pose[1], s.R, s.t)
    success = rot < SUCCESS_ROT_DEG and pos < SUCCESS_POS_M
    return {"ms": ms, "rot_deg": rot, "pos_m": min(pos, JSON_INF), "success": bool(success)}


def run_method(name: str, prepare: Callable[[CorrespondenceSet], Prepared],
               sets: list[CorrespondenceSet], ratio: float) -> dict:
    """Runs one method over all sets of one outlier ratio, reporting progress to stderr."""
    start = time.perf_counter()
    results = [evaluate(prepare, s) for s in sets]
    ok = sum(r["success"] for r in results)
    ms = np.median([r["ms"] for r in results])
    print(f"  {name:14s} outliers {ratio:.2f}: {ok}/{len(sets)} ok, median {ms:.2f} ms "
          f"({time.perf_counter() - start:.1f} s)", file=sys.stderr, flush=True)
    return {"method": name, "outliers": ratio, "sets": results}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, type=Path, help="directory of sets_*.bin")
    p.add_argument("--out", required=True, type=Path, help="output JSON file")
    p.add_argument("--min-iterations", required=True, type=int,
                   help="ransac min_iterations for poselib-tuned (our own default)")
    p.add_argument("--sets-limit", type=int, default=None, help="only the first N sets per file")
    p.add_argument("--methods", nargs="+", default=None,
                   help="subset of methods to run (default: all)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Runs every method on every set of every ratio file and writes the JSON results."""
    args = parse_args(argv)
    methods = make_methods(args.min_iterations)
    names = args.methods or list(methods)
    unknown = set(names) - set(methods)
    if unknown:
        sys.exit(f"unknown methods: {sorted(unknown)}")
    output = []
    for ratio in RATIOS:
        sets = read_sets(args.data / sets_filename(ratio))[: args.sets_limit]
        print(f"outliers {ratio:.2f}: {len(sets)} sets", file=sys.stderr, flush=True)
        output += [run_method(name, methods[name], sets, ratio) for name in names]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(output, indent=1) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
