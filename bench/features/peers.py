#!/usr/bin/env python3
"""Time OpenCV's ORB and brute-force matcher on the images ``multiset-bench features`` wrote.

Reads ``DIR/manifest.json`` and the PGM files it lists (format in ``FORMAT.md``), and with the
same parameters as the Swift side, single-threaded (``cv2.setNumThreads(1)``):

* ``extract``  ``cv2.ORB_create(nfeatures, scaleFactor, nlevels, edgeThreshold, 0, 2,
               cv2.ORB_HARRIS_SCORE, patchSize, fastThreshold).detectAndCompute(image, None)``,
               median of ``repeats`` runs per image;
* ``match``    ``cv2.BFMatcher(cv2.NORM_HAMMING).knnMatch(a, b, k=2)`` plus Lowe's ratio test
               (``m.distance < ratio * n.distance``), median of ``repeats`` runs per pair; the
               knnMatch call alone is reported as ``knn_ms``, and ``cv2.batchDistance(a, b,
               cv2.CV_32S, normType=cv2.NORM_HAMMING, K=2)`` (the same search without DMatch
               objects) as ``batch_ms``;
* ``index``    FLANN's multi-probe LSH (``cv2.flann_Index`` with ``algorithm=6``, the same table
               count, key size and probe level as ours) on the raw descriptors the Swift side
               wrote, recall@1 against ``BFMatcher`` on the same queries.

Keypoint positions get +0.5 (OpenCV's pixel centres to the corner convention of the
homographies) and nothing else, so OpenCV's own pyramid offsets stay in the inlier figures.

Output: ``{"implementation", "opencv", "images": [...], "pairs": [...], "index": [...]}`` in the
schema of the Swift side (see ``FORMAT.md``).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

cv2.setNumThreads(1)

FLANN_INDEX_LSH = 6
BF_CHUNK = 200_000


def read_pgm(path: Path) -> np.ndarray:
    """A binary PGM (P5, maxval 255, no comments) as a uint8 array of shape (height, width)."""
    data = path.read_bytes()
    fields: list[int] = []
    i = 2
    if data[:2] != b"P5":
        raise ValueError(f"{path}: not a binary PGM")
    while len(fields) < 3:
        while data[i : i + 1].isspace():
            i += 1
        start = i
        while data[i : i + 1].isdigit():
            i += 1
        fields.append(int(data[start:i]))
    width, height, maxval = fields
    if maxval != 255:
        raise ValueError(f"{path}: maxval {maxval} is not 255")
    pixels = np.frombuffer(data, dtype=np.uint8, count=width * height, offset=i + 1)
    return pixels.reshape(height, width)


def timed(function, repeats: int):
    """(median milliseconds, last result) of ``repeats`` calls."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), result


def ratio_matches(knn, ratio: float) -> list:
    """Lowe's ratio test on knnMatch output (a query with one neighbour passes)."""
    return [m[0] for m in knn
            if len(m) == 1 or (len(m) >= 2 and m[0].distance < ratio * m[1].distance)]


def inlier_fraction(matches, kp_a, kp_b, homography: np.ndarray) -> float:
    """Fraction of matches whose query keypoint maps within 2 px of the train keypoint."""
    if not matches:
        return 0.0
    a = np.array([kp_a[m.queryIdx].pt for m in matches], dtype=np.float64) + 0.5
    b = np.array([kp_b[m.trainIdx].pt for m in matches], dtype=np.float64) + 0.5
    mapped = np.c_[a, np.ones(len(a))] @ homography.T
    mapped = mapped[:, :2] / mapped[:, 2:3]
    return float(np.mean(np.linalg.norm(mapped - b, axis=1) < 2.0))


def bench_images(data: Path, manifest: dict) -> tuple[list, list]:
    """Extraction per image and matching per pair."""
    p = manifest["orb"]
    orb = cv2.ORB_create(p["nfeatures"], p["scaleFactor"], p["nlevels"], p["edgeThreshold"], 0, 2,
                         cv2.ORB_HARRIS_SCORE, p["patchSize"], p["fastThreshold"])
    matcher = cv2.BFMatcher(cv2.NORM_HAMMING)
    repeats, ratio = manifest["repeats"], manifest["ratio"]
    images, pairs, features = [], [], {}
    for pair in manifest["pairs"]:
        for name in (pair["a"], pair["b"]):
            image = read_pgm(data / name)
            ms, (keypoints, descriptors) = timed(lambda: orb.detectAndCompute(image, None), repeats)
            features[name] = (keypoints, descriptors)
            images.append({"name": name, "extract_ms": ms, "keypoints": len(keypoints)})
    for pair in manifest["pairs"]:
        (kp_a, d_a), (kp_b, d_b) = features[pair["a"]], features[pair["b"]]
        knn_ms, _ = timed(lambda: matcher.knnMatch(d_a, d_b, k=2), repeats)
        batch_ms, _ = timed(lambda: cv2.batchDistance(d_a, d_b, cv2.CV_32S,
                                                      normType=cv2.NORM_HAMMING, K=2), repeats)
        ms, matches = timed(lambda: ratio_matches(matcher.knnMatch(d_a, d_b, k=2), ratio), repeats)
        homography = np.array(pair["homography"], dtype=np.float64).reshape(3, 3)
        pairs.append({"a": pair["a"], "b": pair["b"], "match_ms": ms, "knn_ms": knn_ms,
                      "batch_ms": batch_ms,
                      "matches": len(matches),
                      "inliers_2px": inlier_fraction(matches, kp_a, kp_b, homography)})
    return images, pairs


def exact_two_nearest(queries: np.ndarray, train: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distances to the two nearest train rows by BFMatcher, in chunks: OpenCV 5's matcher takes at
    most 2^18 train rows per call (IMGIDX_ONE)."""
    matcher = cv2.BFMatcher(cv2.NORM_HAMMING)
    best = np.full(len(queries), np.inf)
    second = np.full(len(queries), np.inf)
    for begin in range(0, len(train), BF_CHUNK):
        for q, found in enumerate(matcher.knnMatch(queries, train[begin:begin + BF_CHUNK], k=2)):
            for m in found:
                d = m.distance
                if d < best[q]:
                    best[q], second[q] = d, best[q]
                elif d < second[q]:
                    second[q] = d
    return best, second


def bench_index(data: Path, manifest: dict) -> list:
    """FLANN LSH with our table parameters, against BFMatcher on the same descriptors."""
    spec = manifest["index"]
    train = np.fromfile(data / spec["train"], dtype=np.uint8).reshape(-1, 32)
    queries = np.fromfile(data / spec["queries"], dtype=np.uint8).reshape(-1, 32)
    start = time.perf_counter()
    index = cv2.flann_Index(train, {"algorithm": FLANN_INDEX_LSH, "table_number": spec["tables"],
                                    "key_size": spec["key_bits"],
                                    "multi_probe_level": spec["probe_radius"]})
    build_ms = (time.perf_counter() - start) * 1e3
    start = time.perf_counter()
    _, approx = index.knnSearch(queries, 2, params={})
    query_ms = (time.perf_counter() - start) * 1e3
    start = time.perf_counter()
    best, second = exact_two_nearest(queries, train)
    brute_ms = (time.perf_counter() - start) * 1e3
    # FLANN marks missing neighbours with index -1; its LSH distances are Hamming bit counts.
    found = approx[:, 0].astype(np.float64)
    hit = found <= best
    ratio_ok = best < manifest["ratio"] * second
    return [{"method": "opencv-flann-lsh", "descriptors": int(len(train)),
             "queries": int(len(queries)),
             "build_ms": build_ms, "query_ms": query_ms, "brute_force_ms": brute_ms,
             "speed_up": brute_ms / query_ms if query_ms > 0 else float("inf"),
             "recall_at_1": float(np.mean(hit)), "ratio_matches": int(np.sum(ratio_ok)),
             "ratio_match_recall": float(np.mean(hit[ratio_ok])) if np.any(ratio_ok) else 1.0,
             "parameters": {"tables": spec["tables"], "key_bits": spec["key_bits"],
                            "probe_radius": spec["probe_radius"]}}]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, type=Path,
                   help="directory written by multiset-bench features")
    p.add_argument("--out", required=True, type=Path, help="output JSON file")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Runs the peers and writes their JSON results."""
    args = parse_args(argv)
    manifest = json.loads((args.data / "manifest.json").read_text())
    images, pairs = bench_images(args.data, manifest)
    index = bench_index(args.data, manifest)
    output = {"implementation": "opencv-python", "opencv": cv2.__version__, "images": images,
              "pairs": pairs, "index": index}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(output, indent=1) + "\n")
    extract = statistics.median(r["extract_ms"] for r in images)
    match = statistics.median(r["match_ms"] for r in pairs)
    print(f"opencv-python {cv2.__version__}: ORB extract median {extract:.2f} ms, "
          f"BF ratio match median {match:.2f} ms; wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
