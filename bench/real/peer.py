#!/usr/bin/env python3
"""Plain OpenCV + PoseLib leave-one-out localization on real photographs: the baseline peer of
``make eval-real``.

For every scene (a folder of ``--data`` holding a COLMAP text model in ``sparse/`` and the photos
in ``images/``), every image ``q`` is held out in turn and, per feature type (ORB or SIFT, 2,000
features on the grayscale image):

1. a map is triangulated from the 4 other images whose camera centres are nearest to ``q``'s,
   using their TRUE poses: every pair is matched (brute force, k=2, Lowe ratio 0.8), each match
   triangulated (``cv2.triangulatePoints``) and kept if it lies in front of both cameras and
   reprojects within 2 px in both; it carries the first view's descriptor (no track merging);
2. ``q``'s descriptors are matched to the map points' (k=2, ratio 0.8) and the pose estimated with
   ``poselib.estimate_absolute_pose`` (LO-RANSAC, 4 px); ``q`` is localized with >= 12 inliers;
3. errors against the true pose: camera-centre distance (m) and angle of R_est R_true^T (deg).

``query_s`` = extracting ``q``'s features + matching to the map + PoseLib; ``map_s`` = extracting
the 4 map images' features (each image is extracted once and cached; its one-time cost is charged
to every map that uses it) + pair matching + triangulation. OpenCV runs on one thread.

Keypoints of distorted cameras (SIMPLE_RADIAL, RADIAL, OPENCV) are undistorted to ideal pixels
for triangulation; the query's raw keypoints go to PoseLib with the full COLMAP camera.

Usage: peer.py --data DIR --out FILE [--scenes a,b] [--features orb,sift]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402
import poselib  # noqa: E402

RATIO, MAP_VIEWS, TRI_PX, POSE_PX, MIN_INLIERS, N_FEATURES = 0.8, 4, 2.0, 4.0, 12, 2000
# Supported COLMAP models -> number of leading focal/principal parameters (the rest: OpenCV's distortion
# coefficients k1 k2 p1 p2 [k3 k4 k5 k6], or for OPENCV_FISHEYE cv2.fisheye's k1 k2 k3 k4) — the models
# both OpenCV and PoseLib know.
MODELS = {"SIMPLE_PINHOLE": 3, "PINHOLE": 4, "SIMPLE_RADIAL": 3, "RADIAL": 3, "OPENCV": 4, "FULL_OPENCV": 4,
          "OPENCV_FISHEYE": 4}


def read_model(sparse: Path) -> tuple[dict, list[dict]]:
    """COLMAP text cameras (id -> dict with K, dist, poselib camera) and images (pose, name)."""
    cams = {}
    for line in (sparse / "cameras.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        cid, model, w, h, *p = line.split()
        p = [float(x) for x in p]
        n = MODELS[model]  # KeyError = unsupported model
        fx, fy, cx, cy = (p[0], p[0], p[1], p[2]) if n == 3 else p[:4]
        dist = np.zeros(max(4, len(p) - n))
        dist[: len(p) - n] = p[n:]
        cams[int(cid)] = {"K": np.array([[fx, 0, cx], [0, fy, cy], [0, 0, 1.0]]), "dist": dist,
                          "fisheye": model == "OPENCV_FISHEYE",
                          "poselib": {"model": model, "width": int(w), "height": int(h), "params": p}}
    images, lines = [], (sparse / "images.txt").read_text().splitlines()
    rows = [ln for ln in lines if not ln.startswith("#")]
    for header in rows[::2]:  # each image: a pose line, then a (possibly empty) 2D points line
        if not header.strip():
            continue
        _, qw, qx, qy, qz, tx, ty, tz, cid, name = header.split()
        R = quat_to_R(*map(float, (qw, qx, qy, qz)))
        t = np.array([float(tx), float(ty), float(tz)])
        images.append({"name": name, "R": R, "t": t, "C": -R.T @ t, "cam": cams[int(cid)]})
    return cams, images


def quat_to_R(w: float, x: float, y: float, z: float) -> np.ndarray:
    """Rotation matrix of a (normalized) Hamilton quaternion."""
    n = np.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / n, x / n, y / n, z / n
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def extract(path: Path, feature: str, cam: dict) -> dict:
    """Keypoints (raw and undistorted pixels), descriptors and the extraction time."""
    start = time.perf_counter()
    gray = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    det = cv2.ORB_create(nfeatures=N_FEATURES) if feature == "orb" else cv2.SIFT_create(nfeatures=N_FEATURES)
    kps, desc = det.detectAndCompute(gray, None)
    raw = np.array([k.pt for k in kps], dtype=np.float64).reshape(-1, 2)
    seconds = time.perf_counter() - start
    und = raw
    if len(raw) and cam["fisheye"]:
        und = cv2.fisheye.undistortPoints(raw.reshape(-1, 1, 2), cam["K"], cam["dist"], P=cam["K"]).reshape(-1, 2)
    elif len(raw) and np.any(cam["dist"]):
        und = cv2.undistortPoints(raw.reshape(-1, 1, 2), cam["K"], cam["dist"], P=cam["K"]).reshape(-1, 2)
    return {"raw": raw, "und": und, "desc": desc, "s": seconds}


def ratio_matches(matcher, d1, d2) -> list[tuple[int, int]]:
    """(index in d1, index in d2) pairs passing Lowe's ratio test."""
    if d1 is None or d2 is None or len(d1) < 2 or len(d2) < 2:
        return []
    return [(m.queryIdx, m.trainIdx) for m, n in (p for p in matcher.knnMatch(d1, d2, k=2) if len(p) == 2)
            if m.distance < RATIO * n.distance]


def triangulate(a: dict, b: dict, fa: dict, fb: dict, matcher) -> tuple[np.ndarray, np.ndarray]:
    """3D points (N x 3) and descriptors (of view a) of the checked matches of one image pair."""
    m = np.array(ratio_matches(matcher, fa["desc"], fb["desc"]), dtype=int).reshape(-1, 2)
    if not len(m):
        return np.zeros((0, 3)), fa["desc"][:0]
    xa, xb = fa["und"][m[:, 0]], fb["und"][m[:, 1]]
    Pa = a["cam"]["K"] @ np.hstack([a["R"], a["t"][:, None]])
    Pb = b["cam"]["K"] @ np.hstack([b["R"], b["t"][:, None]])
    X = cv2.triangulatePoints(Pa, Pb, xa.T, xb.T)
    X = (X[:3] / X[3]).T
    keep = np.ones(len(X), dtype=bool)
    for view, x in ((a, xa), (b, xb)):
        Xc = X @ view["R"].T + view["t"]
        proj = Xc @ view["cam"]["K"].T
        with np.errstate(divide="ignore", invalid="ignore"):
            err = np.linalg.norm(proj[:, :2] / proj[:, 2:] - x, axis=1)
        keep &= (Xc[:, 2] > 0) & (err <= TRI_PX)
    return X[keep], fa["desc"][m[keep, 0]]


def localize(q: dict, others: list[dict], feats: dict, feature: str) -> dict:
    """Leave-one-out localization of image q against a map of its nearest other images."""
    norm = cv2.NORM_HAMMING if feature == "orb" else cv2.NORM_L2
    matcher = cv2.BFMatcher(norm)
    near = sorted(others, key=lambda o: np.linalg.norm(o["C"] - q["C"]))[:MAP_VIEWS]
    start = time.perf_counter()
    parts = [triangulate(a, b, feats[a["name"]], feats[b["name"]], matcher)
             for a, b in itertools.combinations(near, 2)]
    X = np.vstack([p[0] for p in parts])
    D = np.vstack([p[1] for p in parts])
    map_s = time.perf_counter() - start + sum(feats[o["name"]]["s"] for o in near)

    fq = feats[q["name"]]
    start = time.perf_counter()
    m = np.array(ratio_matches(matcher, fq["desc"], D), dtype=int).reshape(-1, 2)
    pose, info = None, {}
    if len(m) >= 4:
        pose, info = poselib.estimate_absolute_pose(fq["raw"][m[:, 0]], X[m[:, 1]], q["cam"]["poselib"],
                                                    {"max_reproj_error": POSE_PX}, {})
    query_s = time.perf_counter() - start + fq["s"]

    inliers = int(info.get("num_inliers", 0))
    out = {"name": q["name"], "localized": inliers >= MIN_INLIERS, "inliers": inliers, "matches": len(m),
           "map_points": len(X), "position_m": None, "rotation_deg": None, "query_s": query_s, "map_s": map_s}
    if pose is not None and inliers > 0:
        R, t = np.asarray(pose.R), np.asarray(pose.t)
        cos = (np.trace(R @ q["R"].T) - 1) / 2
        out["rotation_deg"] = float(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))))
        out["position_m"] = float(np.linalg.norm(-R.T @ t - q["C"]))
    return out


def median(values) -> float | None:
    values = [v for v in values if v is not None]
    return float(statistics.median(values)) if values else None


def run_scene(folder: Path, feature: str) -> dict:
    """Leave-one-out over every image of one scene with one feature type."""
    _, images = read_model(folder / "sparse")
    feats = {im["name"]: extract(folder / "images" / im["name"], feature, im["cam"]) for im in images}
    results = [localize(q, [o for o in images if o is not q], feats, feature) for q in images]
    ok = [r for r in results if r["localized"]]
    return {"images": results, "localized": len(ok), "total": len(results),
            "median_position_m": median(r["position_m"] for r in ok),
            "median_rotation_deg": median(r["rotation_deg"] for r in ok),
            "median_map_points": median(r["map_points"] for r in results),
            "p50_query_s": median(r["query_s"] for r in results)}


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="folder of scenes (<scene>/sparse, <scene>/images)")
    parser.add_argument("--out", type=Path, required=True, help="results (JSON)")
    parser.add_argument("--scenes", help="comma-separated scene names (default: every scene of --data)")
    parser.add_argument("--features", default="orb,sift", help="comma-separated subset of orb,sift")
    args = parser.parse_args()

    cv2.setNumThreads(1)
    cv2.setRNGSeed(0)
    scenes = args.scenes.split(",") if args.scenes else sorted(
        p.name for p in args.data.iterdir() if (p / "sparse").is_dir())
    features = args.features.split(",")
    report = {"peer": "opencv+poselib",
              "versions": {"cv2": cv2.__version__, "poselib": poselib.__version__, "numpy": np.__version__},
              "cpu": cpu_model(), "scenes": {}}
    for scene in scenes:
        report["scenes"][scene] = {}
        for feature in features:
            s = run_scene(args.data / scene, feature)
            report["scenes"][scene][feature] = s
            pos, rot = s["median_position_m"], s["median_rotation_deg"]
            print(f"{scene:16s} {feature:4s} localized {s['localized']}/{s['total']}  "
                  f"position {pos * 1000 if pos is not None else float('nan'):7.1f} mm  "
                  f"rotation {rot if rot is not None else float('nan'):6.3f} deg  "
                  f"map points {s['median_map_points']:6.0f}  query {s['p50_query_s'] * 1000:6.1f} ms")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
