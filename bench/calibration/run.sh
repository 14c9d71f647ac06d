#!/usr/bin/env bash
# Confidence calibration runs (`make eval-calibration`): simulated venues × query modes.
# For each venue and seed: a 120-frame 1280×960 scan → map (true poses), an 80-frame 960×720 walk
# (0.5 s apart, drifting AR poses, phone blur and noise) → `multiset eval` single frame VPS-1 (every
# frame), VPS-2 and 4-frame queries (every other frame). Results: one JSON per run in $OUT, summed
# by summarize.py.
set -euo pipefail
M=${MULTISET:-.build/release/multiset}
WORK=${WORK:-bench/data/calibration}
OUT=${OUT:-$WORK/results}
mkdir -p "$WORK" "$OUT"
for v in room:21 room:41 room:61 corridor:31 aliasing:31 aliasing:52; do
  venue=${v%%:*}; seed=${v##*:}
  code=$(printf "MAP_%s%06d" "$(echo "$venue" | tr a-z A-Z | cut -c1-6)" "$seed")
  code=$(printf "%-16s" "$code" | tr ' ' 0 | cut -c1-16)
  scan=$WORK/scan-$venue-$seed walk=$WORK/walk-$venue-$seed
  [ -d "$scan" ] || "$M" synth --venue "$venue" --frames 120 --seed "$seed" --out "$scan" --trajectory scan --width 1280 --height 960 >/dev/null
  [ -d "$walk" ] || "$M" synth --venue "$venue" --frames 80 --seed "$seed" --out "$walk" --trajectory walk --interval 0.5 --width 960 --height 720 >/dev/null
  [ -f "$WORK/data/maps/$code.vpsmap" ] || "$M" map build --captures "$scan" --code "$code" --data "$WORK/data" --use-truth >/dev/null
  "$M" eval --map "$code" --captures "$walk" --data "$WORK/data" --json "$OUT/$venue-$seed-vps1.json" >/dev/null
  "$M" eval --map "$code" --captures "$walk" --data "$WORK/data" --mode vps2 --every 2 --json "$OUT/$venue-$seed-vps2.json" >/dev/null
  "$M" eval --map "$code" --captures "$walk" --data "$WORK/data" --frames 4 --every 2 --json "$OUT/$venue-$seed-multi.json" >/dev/null
  echo "calibration: $venue seed $seed done"
done
python3 "$(dirname "$0")/summarize.py" "$OUT"
