-- wrk script for `make bench` (bench_serve.py): GET /v1/safety at locations spread uniformly over
-- the report's bounds (env BOUNDS="minlon,minlat,maxlon,maxlat"), a fixed seed per thread; the
-- summary printed by done() as one JSON line for the benchmark to read.
local bounds = {}
for v in string.gmatch(os.getenv("BOUNDS") or "-2.2,53.6,-1.7,53.8", "[^,]+") do bounds[#bounds + 1] = tonumber(v) end
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("seed", counter)
end

function init(args)
  math.randomseed(seed or 1)
end

function request()
  local lon = bounds[1] + math.random() * (bounds[3] - bounds[1])
  local lat = bounds[2] + math.random() * (bounds[4] - bounds[2])
  return wrk.format("GET", string.format("/v1/safety?lat=%.6f&lon=%.6f", lat, lon))
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"bytes":%d,"errors_connect":%d,"errors_read":%d,"errors_write":%d,' ..
    '"errors_timeout":%d,"errors_status":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"p999_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.timeout, e.status,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9), latency.max))
end
