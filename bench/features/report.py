#!/usr/bin/env python3
"""Summarize ``multiset-bench features`` (ours) and ``peers.py`` (opencv-python) into a table and
``features.json``.

Inputs: the two JSON files, schema in ``FORMAT.md``. Output: a list of rows
``{"metric", "ours", "opencv", "ratio"}`` (``ratio`` = ours / opencv for times, n/a otherwise)
plus the index rows, and a note on the OpenCV versions: ours links Debian's OpenCV (4.6) through
CVBridge, the peer is the opencv-python wheel (5.0), so extraction times compare two builds of
ORB as much as two call paths.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path


def load(paths: list[Path]) -> dict[str, dict]:
    """Results keyed by implementation; a missing file is reported and skipped."""
    results = {}
    for path in paths:
        if not path.is_file():
            print(f"warning: {path} not found, skipped", file=sys.stderr)
            continue
        data = json.loads(path.read_text())
        results[data["implementation"]] = data
    return results


def median(rows: list[dict], key: str) -> float | None:
    """Median of ``key`` over rows that have it."""
    values = [r[key] for r in rows if key in r]
    return statistics.median(values) if values else None


def mean(rows: list[dict], key: str) -> float | None:
    """Mean of ``key`` over rows that have it."""
    values = [r[key] for r in rows if key in r]
    return statistics.fmean(values) if values else None


def summary_rows(ours: dict | None, opencv: dict | None) -> list[dict]:
    """Per-metric rows with ours, opencv and (for times) ours/opencv."""
    metrics = [
        ("ORB extract, median ms", "images", "extract_ms", median, True),
        ("ORB keypoints, mean", "images", "keypoints", mean, False),
        ("BF 2-NN + ratio 0.8, median ms", "pairs", "match_ms", median, True),
        ("BF 2-NN alone, median ms", "pairs", "knn_ms", median, True),
        ("2-NN as cv2.batchDistance, median ms", "pairs", "batch_ms", median, True),
        ("matches per pair, mean", "pairs", "matches", mean, False),
        ("matches within 2 px, mean %", "pairs", "inliers_2px", mean, False),
    ]
    rows = []
    for label, section, key, reduce, is_time in metrics:
        a = reduce(ours[section], key) if ours else None
        b = reduce(opencv[section], key) if opencv else None
        if key == "inliers_2px":
            a, b = (None if a is None else 100 * a), (None if b is None else 100 * b)
        ratio = a / b if is_time and a is not None and b else None
        rows.append({"metric": label, "ours": a, "opencv": b, "ratio": ratio})
    return rows


def agreement(ours: dict | None, opencv: dict | None) -> str:
    """How many images / pairs give identical keypoint / match counts on both sides."""
    if not ours or not opencv:
        return "n/a"
    theirs_images = {r["name"]: r["keypoints"] for r in opencv["images"]}
    theirs_pairs = {(r["a"], r["b"]): r["matches"] for r in opencv["pairs"]}
    same_images = sum(theirs_images.get(r["name"]) == r["keypoints"] for r in ours["images"])
    same_pairs = sum(theirs_pairs.get((r["a"], r["b"])) == r["matches"] for r in ours["pairs"])
    return (f"identical keypoint counts on {same_images}/{len(ours['images'])} images, "
            f"identical match counts on {same_pairs}/{len(ours['pairs'])} pairs")


def fmt(value: float | None, digits: int = 2) -> str:
    """A number, or n/a."""
    return "n/a" if value is None else f"{value:.{digits}f}"


def print_report(rows: list[dict], index_rows: list[dict], versions: dict[str, str],
                 agree: str) -> None:
    """The table, the index rows and the version note."""
    print(f"{'metric':37s} {'ours':>10s} {'opencv':>10s} {'ours/opencv':>12s}")
    for row in rows:
        print(f"{row['metric']:37s} {fmt(row['ours']):>10s} {fmt(row['opencv']):>10s} "
              f"{fmt(row['ratio'], 3):>12s}")
    print(f"check: {agree}")
    print()
    print(f"{'index':18s} {'N':>8s} {'queries':>8s} {'recall@1':>9s} {'ratio-match':>11s} "
          f"{'query ms':>9s} {'BF ms':>9s} {'speed-up':>9s} {'build ms':>9s}")
    for r in index_rows:
        print(f"{r['method']:18s} {r['descriptors']:8d} {r['queries']:8d} {r['recall_at_1']:9.3f} "
              f"{r['ratio_match_recall']:11.3f} {r['query_ms']:9.1f} {r['brute_force_ms']:9.1f} "
              f"{r['speed_up']:8.1f}x {r['build_ms']:9.1f}")
    print()
    print("versions: " + ", ".join(f"{k} uses OpenCV {v}" for k, v in versions.items()))
    print("note: ours is Debian's OpenCV 4.6 through CVBridge; the peer is the opencv-python 5.0")
    print("      wheel, so extraction times compare two OpenCV builds as well as two call paths.")
    print("      Speed-ups are against each side's own brute force; both run single-threaded.")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--inputs", nargs="+", required=True, type=Path, help="ours.json and peers.json")
    p.add_argument("--out", required=True, type=Path, help="summary JSON (features.json)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Merges the inputs, prints the report and writes the summary JSON."""
    args = parse_args(argv)
    results = load(args.inputs)
    ours, opencv = results.get("ours"), results.get("opencv-python")
    rows = summary_rows(ours, opencv)
    index_rows = (ours or {}).get("index", []) + (opencv or {}).get("index", [])
    versions = {name: data.get("opencv", "?") for name, data in results.items()}
    agree = agreement(ours, opencv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"versions": versions, "rows": rows, "index": index_rows,
                                    "check": agree,
                                    "note": "ours: Debian OpenCV 4.6 via CVBridge; peer: "
                                            "opencv-python 5.0; single-threaded"}, indent=1) + "\n")
    print_report(rows, index_rows, versions, agree)


if __name__ == "__main__":
    main()
