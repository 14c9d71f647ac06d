#!/usr/bin/env python3
"""pycolmap's absolute pose on the localizer's own 2D-3D correspondences (``make bench-localize``).

``multiset-bench localize`` writes ``correspondences.json``: the PINHOLE camera of the 960x720
queries and, per single-frame VPS-1 query, the ratio-test correspondences (pixels, map points),
the true ``camFromWorld`` and the time our estimator (LO-RANSAC + refinement) took on exactly these
inputs. This script times ``pycolmap.estimate_and_refine_absolute_pose`` (default options, one
thread) on the same inputs, then writes ``bench/results/localize.json`` combining both with the
end-to-end figures of ``ours.json``, and prints the table.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pycolmap  # noqa: E402


def errors(R: np.ndarray, t: np.ndarray, R_true: np.ndarray, t_true: np.ndarray) -> tuple[float, float]:
    """Rotation error in degrees and camera-centre distance in metres."""
    cos = (np.trace(R @ R_true.T) - 1) / 2
    rot = float(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))))
    pos = float(np.linalg.norm(-R.T @ t + R_true.T @ t_true))
    return rot, pos


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="folder with correspondences.json")
    parser.add_argument("--ours", type=Path, required=True, help="ours.json from multiset-bench localize")
    parser.add_argument("--out", type=Path, required=True, help="combined results (JSON)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per set (minimum kept)")
    args = parser.parse_args()

    data = json.loads((args.data / "correspondences.json").read_text())
    cam = data["camera"]
    camera = pycolmap.Camera(model="PINHOLE", width=cam["width"], height=cam["height"],
                             params=[cam["fx"], cam["fy"], cam["cx"], cam["cy"]])
    peer_ms, ours_ms, peer_err, ok = [], [], [], 0
    for s in data["sets"]:
        p2d = np.asarray(s["p2d"], dtype=np.float64)
        p3d = np.asarray(s["p3d"], dtype=np.float64)
        R_true = np.asarray(s["truth"]["R"]).reshape(3, 3)
        t_true = np.asarray(s["truth"]["t"])
        best = float("inf")
        result = None
        for _ in range(args.repeat):
            start = time.perf_counter()
            result = pycolmap.estimate_and_refine_absolute_pose(p2d, p3d, camera)
            best = min(best, (time.perf_counter() - start) * 1000)
        peer_ms.append(best)
        ours_ms.append(s["ours_ms"])
        if result is not None:
            pose = result["cam_from_world"]
            rot, pos = errors(pose.rotation.matrix(), np.asarray(pose.translation), R_true, t_true)
            peer_err.append((rot, pos))
            ok += rot <= 1 and pos <= 0.05

    ours = json.loads(args.ours.read_text())
    p50_peer = statistics.median(peer_ms)
    p50_ours = statistics.median(ours_ms)
    combined = {
        "ours": ours,
        "pose_on_same_correspondences": {
            "sets": len(peer_ms),
            "matches_median": statistics.median(len(s["p2d"]) for s in data["sets"]),
            "ours_p50_ms": p50_ours,
            "pycolmap_p50_ms": p50_peer,
            "ratio_ours_over_pycolmap": p50_ours / p50_peer,
            "pycolmap_within_5cm_1deg": ok / max(1, len(peer_ms)),
            "pycolmap_version": pycolmap.__version__,
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(combined, indent=1, sort_keys=True))

    print(f"map: {ours['map_points']} points, {ours['map_keyframes']} keyframes; queries {ours['image']}, one core")
    print("| query | end-to-end p50 | p90 | recall (5 cm, 1°) | stages p50 (ms) |")
    print("| --- | --- | --- | --- | --- |")
    for key in ("single_vps-1", "single_vps-2", "multi_4"):
        e = ours[key]
        stages = ", ".join(f"{k} {v['p50']:.1f}" for k, v in sorted(e["stages_ms"].items()))
        print(f"| {key} | {e['end_to_end_ms']['p50']:.1f} ms | {e['end_to_end_ms']['p90']:.1f} ms | "
              f"{e['recall_5cm_1deg']:.2f} | {stages} |")
    print(f"pose on the same correspondences ({len(peer_ms)} queries, median "
          f"{combined['pose_on_same_correspondences']['matches_median']} matches): ours {p50_ours:.2f} ms, "
          f"pycolmap {p50_peer:.2f} ms, ratio {p50_ours / p50_peer:.2f}x")


if __name__ == "__main__":
    main()
