-- serverbench reporter for wrk: prints one JSON line after the run.
-- Only done() is defined: a response() hook would make wrk hand every response to Lua and
-- cost throughput, so per-status counting is left to wrk (errors.status = status >= 400).
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'SERVERBENCH-WRK {"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"latency_us":{"p50":%d,"p75":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d,"mean":%.3f,"stdev":%.3f},' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d,"status":%d}}\n',
    summary.requests, summary.duration, summary.bytes,
    latency:percentile(50), latency:percentile(75), latency:percentile(90),
    latency:percentile(99), latency:percentile(99.9), latency.max, latency.mean, latency.stdev,
    e.connect, e.read, e.write, e.timeout, e.status))
end
