#!/usr/bin/env python3
"""Summarize per-set solver results into ``solvers.json`` and check the speed/accuracy targets.

Inputs are JSON files in the per-set schema written by ``peers.py`` (and by the Swift benchmark
for ``ours-p3p`` / ``ours-up2p``): a list of
``{"method", "outliers", "sets": [{"ms", "rot_deg", "pos_m", "success"}, ...]}``.

Output: a list of ``{"method", "outliers", "median_ms", "success", "rot_deg", "pos_m"}`` where
``success`` is the percentage of successful sets and the other values are medians over sets.

Targets, against the baseline = the faster (by median ms) of ``poselib`` / ``poselib-tuned``:

(a) at every outlier ratio, ``ours-p3p`` is at least as fast, its success rate is at most 0.5
    percentage points lower, and its median rotation / position errors are <= 1.1x the baseline's;
(b) at 0.9 outliers, ``ours-up2p`` is at least 3x faster than the baseline.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

METHOD_ORDER = ["ours-p3p", "ours-up2p", "poselib", "poselib-tuned", "pycolmap",
                "opencv-p3p", "opencv-usac"]
BASELINES = ("poselib", "poselib-tuned")
SUCCESS_SLACK_PP = 0.5
ERROR_FACTOR = 1.1
UP2P_SPEEDUP = 3.0
UP2P_RATIO = 0.9

Key = tuple[str, float]
Row = dict


def load_results(paths: list[Path]) -> dict[Key, list[dict]]:
    """Per-set results keyed by (method, outliers); a later file replaces an earlier entry.

    A missing input file is reported on stderr and skipped (its methods then show as n/a).
    """
    merged: dict[Key, list[dict]] = {}
    for path in paths:
        if not Path(path).is_file():
            print(f"warning: {path} not found, skipped", file=sys.stderr)
            continue
        for entry in json.loads(Path(path).read_text()):
            key = (entry["method"], round(float(entry["outliers"]), 4))
            if key in merged:
                print(f"warning: {path} replaces {key}", file=sys.stderr)
            merged[key] = entry["sets"]
    return merged


def summarize(method: str, outliers: float, sets: list[dict]) -> Row:
    """Median time/errors and success percentage of one (method, outliers) entry."""
    return {
        "method": method,
        "outliers": outliers,
        "median_ms": statistics.median(s["ms"] for s in sets),
        "success": 100.0 * sum(bool(s["success"]) for s in sets) / len(sets),
        "rot_deg": statistics.median(s["rot_deg"] for s in sets),
        "pos_m": statistics.median(s["pos_m"] for s in sets),
    }


def method_rank(method: str) -> tuple[int, str]:
    """Sort key: known methods in display order, then others alphabetically."""
    if method in METHOD_ORDER:
        return METHOD_ORDER.index(method), method
    return len(METHOD_ORDER), method


def summarize_all(results: dict[Key, list[dict]]) -> list[Row]:
    """Summary rows sorted by outlier ratio, then method."""
    rows = [summarize(m, r, sets) for (m, r), sets in results.items() if sets]
    return sorted(rows, key=lambda row: (row["outliers"], method_rank(row["method"])))


def find(rows: list[Row], method: str, outliers: float) -> Row | None:
    """The row of ``method`` at ``outliers``, or None."""
    return next((r for r in rows if r["method"] == method and r["outliers"] == outliers), None)


def baseline(rows: list[Row], outliers: float) -> Row | None:
    """The faster of the poselib rows at ``outliers`` (None when neither exists)."""
    candidates = [r for m in BASELINES if (r := find(rows, m, outliers)) is not None]
    return min(candidates, key=lambda r: r["median_ms"], default=None)


def format_row(row: Row) -> str:
    """One table line."""
    return (f"  {row['method']:14s} {row['median_ms']:10.3f} {row['success']:8.1f} "
            f"{row['rot_deg']:10.4f} {row['pos_m']:10.4f}")


def speed_ratio(ours: Row | None, base: Row | None) -> str:
    """``ours / baseline`` median time as text, or n/a."""
    if ours is None or base is None or base["median_ms"] <= 0:
        return "n/a"
    return f"{ours['median_ms'] / base['median_ms']:.3f}x"


def check_p3p(ours: Row | None, base: Row | None) -> str:
    """Target (a) at one ratio: PASS/MISS with the failing criteria, or n/a."""
    if ours is None or base is None:
        return "n/a"
    misses = []
    if ours["median_ms"] > base["median_ms"]:
        misses.append(f"slower ({ours['median_ms']:.3f} > {base['median_ms']:.3f} ms)")
    if ours["success"] < base["success"] - SUCCESS_SLACK_PP:
        misses.append(f"success {ours['success']:.1f} < {base['success']:.1f} - 0.5")
    for key, unit in (("rot_deg", "deg"), ("pos_m", "m")):
        if ours[key] > ERROR_FACTOR * base[key]:
            misses.append(f"{key} {ours[key]:.4g} > 1.1 x {base[key]:.4g} {unit}")
    return "PASS" if not misses else "MISS: " + "; ".join(misses)


def check_up2p(ours: Row | None, base: Row | None) -> str:
    """Target (b): PASS/MISS, or n/a."""
    if ours is None or base is None:
        return "n/a"
    speedup = base["median_ms"] / ours["median_ms"] if ours["median_ms"] > 0 else float("inf")
    verdict = "PASS" if speedup >= UP2P_SPEEDUP else "MISS"
    return f"{verdict} ({speedup:.2f}x faster than {base['method']}, need {UP2P_SPEEDUP:g}x)"


def print_report(rows: list[Row]) -> None:
    """Prints the table grouped by outlier ratio, speed ratios and target verdicts."""
    for outliers in sorted({r["outliers"] for r in rows}):
        print(f"outliers {outliers:.2f}")
        print(f"  {'method':14s} {'median ms':>10s} {'success%':>8s} {'rot deg':>10s} "
              f"{'pos m':>10s}")
        for row in rows:
            if row["outliers"] == outliers:
                print(format_row(row))
        base = baseline(rows, outliers)
        p3p, up2p = find(rows, "ours-p3p", outliers), find(rows, "ours-up2p", outliers)
        base_name = base["method"] if base else "poselib"
        print(f"  ours-p3p / {base_name}: {speed_ratio(p3p, base)}   "
              f"ours-up2p / {base_name}: {speed_ratio(up2p, base)}")
        print(f"  target (a) ours-p3p vs {base_name}: {check_p3p(p3p, base)}")
        if abs(outliers - UP2P_RATIO) < 1e-9:
            print(f"  target (b) ours-up2p >= 3x faster: {check_up2p(up2p, base)}")
        print()
    if not any(abs(r["outliers"] - UP2P_RATIO) < 1e-9 for r in rows):
        print("target (b) ours-up2p >= 3x faster at 0.90: n/a")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--inputs", nargs="+", required=True, type=Path, help="per-set JSON files")
    p.add_argument("--out", required=True, type=Path, help="summary JSON (solvers.json)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Merges the inputs, writes the summary JSON and prints the report."""
    args = parse_args(argv)
    rows = summarize_all(load_results(args.inputs))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=1) + "\n")
    print_report(rows)


if __name__ == "__main__":
    main()
