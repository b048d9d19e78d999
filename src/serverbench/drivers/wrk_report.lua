-- serverbench reporter for wrk: prints one JSON line after the run.
-- Only done() is defined: a response() hook would make wrk hand every response to Lua and
-- cost throughput, so per-status counting is left to wrk (errors.status = status >= 400).
-- wrk.py puts `local connections, timeout_us = <-c>, <--timeout in us>` before this text.
local ffi = require("ffi")

-- wrk 4.x "corrects" its latency histogram for coordinated omission before done() sees it
-- (wrk.c: stats_correct(latency, runtime_us / (requests / connections))): every recorded latency
-- n >= 2e, e being a connection's mean time per request, adds one synthetic sample at each of
-- n - e, n - 2e, ... down to e.  In a closed model those requests were never sent (a connection
-- waits for its answer), so the synthetic samples break Little's law: on gevent servers, whose
-- latencies are uneven, they outnumber the real ones (rps x mean / connections 2-15).  This
-- removes them in place: the histogram is wrk's `stats` struct (uint64 count, limit, min, max,
-- data[limit]), reached through the userdata's payload (a `stats *`).  A correction only adds
-- to a bucket from buckets above it, so walking down from max restores each bucket exactly.
local function uncorrect(latency, runtime_us, requests)
  local s = ffi.cast("uint64_t **", latency)[0]
  if tonumber(s[1]) ~= timeout_us + 1 then return -1 end  -- not wrk 4.x's layout: say so, touch nothing
  local per_connection = math.floor(requests / connections)
  if per_connection == 0 then return 0 end
  local e = math.floor(runtime_us / per_connection)
  local max, data = tonumber(s[3]), s + 4
  if max < 2 * e then return 0 end  -- no latency reached twice the interval: wrk added nothing
  local owed = ffi.new("double[?]", e)  -- by n mod e: the real samples above that the bucket was given one for
  local removed = 0
  for m = max, e + 1, -1 do
    local r = m % e
    local real = tonumber(data[m]) - owed[r]
    if owed[r] > 0 then data[m] = real; removed = removed + owed[r] end
    if m >= 2 * e then owed[r] = owed[r] + real end
  end
  s[0] = s[0] - removed
  return removed
end

done = function(summary, latency, requests)
  local e = summary.errors
  local removed = uncorrect(latency, summary.duration, summary.requests)
  io.write(string.format(
    'SERVERBENCH-WRK {"requests":%d,"duration_us":%d,"bytes":%d,"synthetic_removed":%d,' ..
    '"latency_us":{"p50":%d,"p75":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d,"mean":%.3f,"stdev":%.3f},' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d,"status":%d}}\n',
    summary.requests, summary.duration, summary.bytes, removed,
    latency:percentile(50), latency:percentile(75), latency:percentile(90),
    latency:percentile(99), latency:percentile(99.9), latency.max, latency.mean, latency.stdev,
    e.connect, e.read, e.write, e.timeout, e.status))
  if dump_histogram then  -- across load hosts (docs/hosts.md): every latency's count, to merge exactly
    local s = ffi.cast("uint64_t **", latency)[0]
    local data, parts = s + 4, {}
    for m = tonumber(s[2]), tonumber(s[3]) do
      local n = tonumber(data[m])
      if n > 0 then parts[#parts + 1] = string.format('"%d":%d', m, n) end
    end
    io.write('SERVERBENCH-WRK-HIST {' .. table.concat(parts, ",") .. '}\n')
  end
end
