#!/usr/bin/env bash
# The load-shape figures of docs/lab/measurements.md (issue 6): gunicorn sync -w 2 and aiohttp on /json and the book site.
# Run alone on the machine (never next to another load test): about 6 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
P=(.venv/bin/python -m pytest -m perf -p no:cacheprovider --perf-variants=gunicorn-sync-w2,aiohttp)
R=benchmarks/results
"${P[@]}" tests/perf/test_throughput.py --perf-workloads=json --perf-connections=2,4,8,64,256,1000,5000 --perf-json $R/sweep-concurrency.json
"${P[@]}" tests/perf/test_throughput.py --perf-workloads=json --perf-connections=64 --perf-requests-per-connection=keepalive,1,10 --perf-json $R/sweep-reuse.json
"${P[@]}" tests/perf/test_throughput.py --perf-workloads=json --perf-connections=64 --perf-rates=20,50,100,200,500,1000,2000,4000,8000 --perf-rate-connections=256 --perf-json $R/sweep-rates.json
"${P[@]}" tests/perf/test_throughput.py --perf-workloads=site --perf-connections=64 --perf-json $R/site-wrk.json
"${P[@]}" tests/perf/test_locust.py --perf-locust-users=64 --perf-locust-workers=0,1 --perf-json $R/site-locust.json
