#!/usr/bin/env bash
# Runs each libFuzzer target of Fuzz/ (built by `make fuzz-build`) for FUZZ_SECONDS or FUZZ_RUNS executions,
# seeded from Fuzz/Corpus/<target> (kept in the repo) with new inputs going to Fuzz/.corpus/<target>; prints
# one line per target: executions, seconds, executions per second, and the outcome (a crash, a leak or an
# out-of-memory ends a target with a non-zero status and a crash-* / leak-* file in Fuzz/.artifacts).
set -uo pipefail
cd "$(dirname "$0")"
bin=.build/release
mkdir -p .artifacts
status=0
summary=()
for target in "$@"; do
  mkdir -p ".corpus/$target" "Corpus/$target"
  limits=(-rss_limit_mb=2048 -max_len=65536 -timeout=10 -print_final_stats=1 -artifact_prefix=".artifacts/$target-")
  if [ -n "${FUZZ_RUNS:-}" ]; then limits+=(-runs="$FUZZ_RUNS"); else limits+=(-max_total_time="${FUZZ_SECONDS:-60}"); fi
  log=".artifacts/$target.log"
  start=$(date +%s.%N)
  ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=lsan.supp,print_suppressions=0 "$bin/$target" "${limits[@]}" ".corpus/$target" "Corpus/$target" >"$log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  runs=$(grep -oE "stat::number_of_executed_units: [0-9]+" "$log" | grep -oE "[0-9]+$" | tail -1)
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')
  rate=$(awk -v r="${runs:-0}" -v s="$secs" 'BEGIN { printf "%.0f", (s > 0 ? r / s : 0) }')
  if [ $rc -eq 0 ]; then outcome="0 crashes, 0 leaks"; else outcome="FAILED (exit $rc, see $log)"; status=1; fi
  line=$(printf "%-18s %12s executions %6s s %8s/s  %s" "$target" "${runs:-?}" "$secs" "$rate" "$outcome")
  echo "$line"
  summary+=("$line")
done
echo
echo "fuzz summary ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores):"
printf '%s\n' "${summary[@]}"
exit $status
