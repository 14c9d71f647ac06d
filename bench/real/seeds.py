#!/usr/bin/env python3
"""How much each leave-one-out answer owes to the draw: `multiset eval --colmap … --leave-one-out
--seed S` over many seeds, per scene.

The pose search and the competitor search behind the confidence are seeded RANSAC runs. One seed
gives one outcome per image; this runs ``--seeds`` of them and prints, per scene, how often each
image was answered (confidence >= 0.2), how often an answer was wrong (> 0.5 m or > 5 deg), and the
spread of the per-seed median errors.

Usage: seeds.py --scenes DIR [DIR ...] [--seeds 40] [--multiset .build/release/multiset]
                [--work DIR] [-- extra eval arguments]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path


def run(multiset: str, scene: Path, seed: int, out: Path, extra: list[str]) -> list[dict]:
    """One leave-one-out run of `scene` with `seed`; its per-query results."""
    cmd = [multiset, "eval", "--colmap", str(scene / "sparse"), "--images", str(scene / "images"),
           "--leave-one-out", "--seed", str(seed), "--json", str(out), *extra]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return json.loads(out.read_text())["queries"]


def quartiles(values: list[float]) -> str:
    """min / median / max of `values`, or a dash."""
    if not values:
        return "-"
    return f"{min(values):.1f} / {statistics.median(values):.1f} / {max(values):.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenes", nargs="+", type=Path, required=True,
                        help="folders holding sparse/ and images/")
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--multiset", default=".build/release/multiset")
    parser.add_argument("--work", type=Path, default=Path("bench/data/seeds"))
    parser.add_argument("extra", nargs="*", help="more `multiset eval` arguments (after --)")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    for scene in args.scenes:
        answered, wrong, total = Counter(), Counter(), Counter()
        medians_mm, medians_deg = [], []
        for seed in range(1, args.seeds + 1):
            queries = run(args.multiset, scene, seed, args.work / f"{scene.name}-{seed}.json", args.extra)
            kept = [q for q in queries if q["answered"]]
            for q in queries:
                total[q["name"]] += 1
            for q in kept:
                answered[q["name"]] += 1
                if q["position_m"] > 0.5 or q["rotation_deg"] > 5:
                    wrong[q["name"]] += 1
            if kept:
                medians_mm.append(1000 * statistics.median(q["position_m"] for q in kept))
                medians_deg.append(statistics.median(q["rotation_deg"] for q in kept))
        print(f"{scene.name}: {args.seeds} seeds, {sum(answered.values())} of {sum(total.values())} "
              f"answered, {sum(wrong.values())} wrong")
        print("  answered per image: " + ", ".join(f"{n} {answered[n]}" for n in sorted(total)))
        if wrong:
            print("  wrong per image: " + ", ".join(f"{n} {c}" for n, c in sorted(wrong.items())))
        print(f"  median position per seed, mm (min / median / max): {quartiles(medians_mm)}")
        spread = (f"{min(medians_deg):.3f} / {statistics.median(medians_deg):.3f} / {max(medians_deg):.3f}"
                  if medians_deg else "-")
        print(f"  median rotation per seed, deg (min / median / max): {spread}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
