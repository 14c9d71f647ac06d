#!/usr/bin/env bash
# make bench-server: single-frame queries per second against `multiset serve` on loopback with wrk.
# Builds a synthetic room map, starts the server, fires the same query for DURATION seconds, and writes
# bench/results/server.json (throughput, p50/p90/p99 latency, errors, resident memory before/after).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=.build/release/multiset
DURATION=${DURATION:-20}
CONNECTIONS=${CONNECTIONS:-4}
WORK=$(mktemp -d)
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT
$BIN synth --venue room --frames 73 --interval 1 --trajectory scan --seed 3 --out "$WORK/caps" > /dev/null
$BIN map build --captures "$WORK/caps" --code MAP_BENCHROOM001 --data "$WORK/data" | tail -1
CREDS=$($BIN clients create --name bench --data "$WORK/data")
ID=$(echo "$CREDS" | awk '/client id/ {print $3}')
SECRET=$(echo "$CREDS" | awk '/client secret/ {print $3}')
$BIN serve --port 0 --data "$WORK/data" > "$WORK/serve.log" 2> "$WORK/requests.log" &
SERVER=$!
for _ in $(seq 100); do grep -q listening "$WORK/serve.log" 2>/dev/null && break; sleep 0.1; done
URL=$(sed -n 's/.*listening on \(http:[^ ]*\)\/v1.*/\1/p' "$WORK/serve.log")
TOKEN=$(curl -s -X POST -u "$ID:$SECRET" "$URL/v1/m2m/token" | python3 -c "import json,sys; print(json.load(sys.stdin)['token'])")
BOUNDARY=vpsbenchboundary
python3 - "$WORK" "$BOUNDARY" <<'PY'
import json, sys
work, boundary = sys.argv[1], sys.argv[2]
frame = json.load(open(f"{work}/caps/captures.json"))["frames"][31]
k = frame["intrinsics"]
fields = {"mapCode": "MAP_BENCHROOM001", "fx": k["fx"], "fy": k["fy"], "px": k["cx"], "py": k["cy"],
          "width": k["width"], "height": k["height"], "isRightHanded": "true"}
body = b""
for name, value in fields.items():
    body += f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n".encode()
image = open(f"{work}/caps/{frame['image']}", "rb").read()
body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"queryImage\"; filename=\"q.jpg\"\r\n"
         f"Content-Type: image/jpeg\r\n\r\n").encode() + image + f"\r\n--{boundary}--\r\n".encode()
open(f"{work}/body.bin", "wb").write(body)
PY
memory() { curl -s "$URL/metrics" | awk '/^vps_resident_memory_bytes/ {print $2}'; }
# Warm-up (loads the map once), then measure.
VPS_BODY="$WORK/body.bin" VPS_TOKEN=$TOKEN VPS_BOUNDARY=$BOUNDARY wrk -t1 -c2 -d3s -s bench/server/post.lua "$URL/v1/vps/map/query-form" > /dev/null
BEFORE=$(memory)
OUT=$(VPS_BODY="$WORK/body.bin" VPS_TOKEN=$TOKEN VPS_BOUNDARY=$BOUNDARY wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s bench/server/post.lua "$URL/v1/vps/map/query-form")
AFTER=$(memory)
FOUND=$(curl -s -H "Authorization: Bearer $TOKEN" -H "Content-Type: multipart/form-data; boundary=$BOUNDARY" --data-binary "@$WORK/body.bin" "$URL/v1/vps/map/query-form" | python3 -c "import json,sys; print(json.load(sys.stdin)['poseFound'])")
echo "$OUT" | grep -E "Requests/sec|Latency|Non-2xx" || true
RESULT=$(echo "$OUT" | grep RESULT)
mkdir -p bench/results
python3 - "$RESULT" "$BEFORE" "$AFTER" "$FOUND" "$CONNECTIONS" <<'PY'
import json, sys
fields = dict(kv.split("=") for kv in sys.argv[1].split()[1:])
req, err, dur = int(fields["requests"]), int(fields["errors"]), float(fields["duration_s"])
p50, p90, p99 = float(fields["p50_ms"]), float(fields["p90_ms"]), float(fields["p99_ms"])
before, after = float(sys.argv[2]), float(sys.argv[3])
result = {"queries_per_second": req / dur, "requests": req, "errors": err, "p50_ms": p50, "p90_ms": p90, "p99_ms": p99,
          "p99_over_p50": p99 / p50, "rss_before_mb": before / 1e6, "rss_after_mb": after / 1e6,
          "pose_found": sys.argv[4] == "True", "connections": int(sys.argv[5])}
json.dump(result, open("bench/results/server.json", "w"), indent=2)
print(f"server: {result['queries_per_second']:.1f} queries/s, p50 {p50:.1f} ms, p99 {p99:.1f} ms "
      f"(p99/p50 {result['p99_over_p50']:.2f}), errors {err}, RSS {before/1e6:.0f} → {after/1e6:.0f} MB, pose found: {result['pose_found']}")
print("target ≥ 50 queries/s, p99 ≤ 3 × p50, zero errors, flat memory:",
      "PASS" if result["queries_per_second"] >= 50 and result["p99_over_p50"] <= 3 and err == 0 and after <= before * 1.1 else "MISS")
PY
