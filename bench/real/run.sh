#!/usr/bin/env bash
# make eval-real: leave-one-out localization on real photographs with true poses (the Strecha scenes
# of $DATA, see its README.md). For every scene (a folder with sparse/ and images/), ours runs in four
# configurations: VPS-1 single image (ORB), VPS-2 single image on RootSIFT maps and queries, VPS-2 on ORB
# (for reference), 4-frame rig VPS-1 (ORB); then the OpenCV + PoseLib
# peer (peer.py) runs once over every scene with ORB and SIFT; report.py prints the table and the
# checks and writes $OUT. Raw results (JSON, and each run's stdout as .txt) stay in $WORK.
# REUSE_PEER=1 keeps the peer's results already in $WORK (a re-run of ours alone).
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
failed=()
configs=("vps1:" "vps2:--mode vps2 --features rootsift" "vps2orb:--mode vps2" "frames4:--frames 4")
for scene in "${scenes[@]}"; do
  for c in "${configs[@]}"; do
    conf=${c%%:*} extra=${c#*:}
    echo "eval-real: $scene $conf (multiset eval --leave-one-out${extra:+ $extra}) -> $WORK/$scene-$conf.json"
    # A configuration that cannot run (a 4-frame rig on a scene of 4 images, a model the importer
    # refuses) is reported as "no results" for that scene, not left to stop the other scenes; no
    # earlier run's JSON stands in for it.
    rm -f "$WORK/$scene-$conf.json"
    # shellcheck disable=SC2086  # $extra is a list of arguments
    if "$M" eval --colmap "$DATA/$scene/sparse" --images "$DATA/$scene/images" --leave-one-out $extra \
      --json "$WORK/$scene-$conf.json" > "$WORK/$scene-$conf.txt" 2> "$WORK/$scene-$conf.err"; then
      grep -m1 "median error" "$WORK/$scene-$conf.txt" | sed 's/^ */  /' || true
    else
      failed+=("$scene $conf")
      echo "  failed: $(tail -n 1 "$WORK/$scene-$conf.err")"
    fi
  done
done

list=$(IFS=,; echo "${scenes[*]}")
if [ "${REUSE_PEER:-0}" = 1 ] && [ -f "$WORK/peer.json" ]; then
  # While iterating on ours: the peer's figures of an earlier run on the same data (its times then
  # come from another run, so read query ratios only from a full run).
  echo "eval-real: peer reused from $WORK/peer.json (REUSE_PEER=1)"
else
  echo "eval-real: peer (OpenCV ORB and SIFT + PoseLib) on $list -> $WORK/peer.json"
  "$PY" bench/real/peer.py --data "$DATA" --scenes "$list" --features orb,sift --out "$WORK/peer.json" \
    > "$WORK/peer.txt"
fi

echo "eval-real: report -> $OUT"
"$PY" bench/real/report.py --work "$WORK" --peer "$WORK/peer.json" --out "$OUT"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'eval-real: %d configuration(s) did not run (their .err files in %s):\n' "${#failed[@]}" "$WORK" >&2
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
