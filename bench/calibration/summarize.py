#!/usr/bin/env python3
"""Sum `multiset eval --json` results into the confidence calibration table (docs/EVALUATION.md)."""

import json
import sys
from pathlib import Path


def main() -> None:
    folder = Path(sys.argv[1])
    totals = {"queries": 0, "answers_0.2": 0, "wrong_0.2": 0, "answers_0.3": 0, "wrong_0.3": 0}
    print("| run | queries | recall (5 cm, 1°) | median | answers ≥ 0.2 (wrong) | answers ≥ 0.3 (wrong) |")
    print("| --- | ---: | ---: | --- | ---: | ---: |")
    for f in sorted(folder.glob("*.json")):
        d = json.loads(f.read_text())
        a2, a3 = d["answers_at_0.2"], d["answers_at_0.3"]
        w2, w3 = round(d["wrong_share_at_0.2"] * a2), round(d["wrong_confident_share"] * a3)
        median = "—" if d["median_position_m"] < 0 else \
            f"{d['median_position_m'] * 1000:.1f} mm / {d['median_rotation_deg']:.3f}°"
        print(f"| {f.stem} | {d['frames']} | {d['recall']['5cm_1deg']:.3f} | {median} | {a2} ({w2}) | {a3} ({w3}) |")
        for k, v in (("queries", d["frames"]), ("answers_0.2", a2), ("wrong_0.2", w2),
                     ("answers_0.3", a3), ("wrong_0.3", w3)):
            totals[k] += v
    print(f"| all | {totals['queries']} | | | {totals['answers_0.2']} ({totals['wrong_0.2']}) | "
          f"{totals['answers_0.3']} ({totals['wrong_0.3']}) |")
    share = lambda w, a: 100 * w / a if a else 0.0  # noqa: E731
    print(f"wrong among answers: {share(totals['wrong_0.3'], totals['answers_0.3']):.2f} % at ≥ 0.3 "
          f"(limit 1 %), {share(totals['wrong_0.2'], totals['answers_0.2']):.2f} % at ≥ 0.2 (limit 3 %)")


if __name__ == "__main__":
    main()
