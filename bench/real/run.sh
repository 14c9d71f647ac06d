#!/usr/bin/env bash
# make eval-real: leave-one-out localization on real photographs with true poses (the Strecha scenes
# of $DATA, see its README.md). For every scene (a folder with sparse/ and images/), ours runs in four
# configurations: VPS-1 single image (ORB), VPS-2 single image on RootSIFT maps and queries, VPS-2 on ORB
# (for reference), 4-frame rig VPS-1 (ORB); then the OpenCV + PoseLib
# peer (peer.py) runs once over every scene with ORB and SIFT; report.py prints the table and the
# checks and writes $OUT. Raw results (JSON, and each run's stdout as .txt) stay in $WORK.
# Relative paths are taken from the repository root.
set -euo pipefail
cd "$(dirname "$0")/../.."
M=${MULTISET:-.build/release/multiset}
PY=${PYTHON:-.venv/bin/python}
DATA=${REAL_DATA:-../shared/data/real-dev}
WORK=${WORK:-bench/data/real}
OUT=${OUT:-bench/results/real.json}

if [ ! -d "$DATA" ]; then
  echo "eval-real: no real data at $DATA (set REAL_DATA to a folder of <scene>/{images,sparse})" >&2
  exit 1
fi
[ -x "$M" ] || { echo "eval-real: $M not found; build it first (swift build -c release --product multiset)" >&2; exit 1; }
scenes=()
for dir in "$DATA"/*/; do
  [ -d "$dir/sparse" ] && scenes+=("$(basename "$dir")")
done
if [ ${#scenes[@]} -eq 0 ]; then
  echo "eval-real: no scene with a sparse/ folder in $DATA" >&2
  exit 1
fi
mkdir -p "$WORK" "$(dirname "$OUT")"

# Ours: configuration name -> extra arguments of `multiset eval`.
configs=("vps1:" "vps2:--mode vps2 --features rootsift" "vps2orb:--mode vps2" "frames4:--frames 4")
for scene in "${scenes[@]}"; do
  for c in "${configs[@]}"; do
    conf=${c%%:*} extra=${c#*:}
    echo "eval-real: $scene $conf (multiset eval --leave-one-out${extra:+ $extra}) -> $WORK/$scene-$conf.json"
    # shellcheck disable=SC2086  # $extra is a list of arguments
    "$M" eval --colmap "$DATA/$scene/sparse" --images "$DATA/$scene/images" --leave-one-out $extra \
      --json "$WORK/$scene-$conf.json" > "$WORK/$scene-$conf.txt"
    grep -m1 "median error" "$WORK/$scene-$conf.txt" | sed 's/^ */  /' || true
  done
done

list=$(IFS=,; echo "${scenes[*]}")
echo "eval-real: peer (OpenCV ORB and SIFT + PoseLib) on $list -> $WORK/peer.json"
"$PY" bench/real/peer.py --data "$DATA" --scenes "$list" --features orb,sift --out "$WORK/peer.json" \
  > "$WORK/peer.txt"

echo "eval-real: report -> $OUT"
"$PY" bench/real/report.py --work "$WORK" --peer "$WORK/peer.json" --out "$OUT"
