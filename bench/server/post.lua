-- wrk script: POST the prepared multipart query (body file and headers from the environment).
local f = assert(io.open(os.getenv("VPS_BODY"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*all")
f:close()
wrk.headers["Authorization"] = "Bearer " .. os.getenv("VPS_TOKEN")
wrk.headers["Content-Type"] = "multipart/form-data; boundary=" .. os.getenv("VPS_BOUNDARY")

function done(summary, latency, requests)
  io.write(string.format("RESULT requests=%d errors=%d duration_s=%.3f p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f\n",
    summary.requests, summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000))
end
