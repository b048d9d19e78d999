set -x
cd /work/main
P=".venv/bin/python -m pytest -m perf -p no:cacheprovider --perf-variants=gunicorn-sync-w2,aiohttp"
time $P tests/perf/test_throughput.py --perf-workloads=json --perf-connections=2,4,8,64,256,1000,5000 --perf-json benchmarks/results/sweep-concurrency.json
time $P tests/perf/test_throughput.py --perf-workloads=json --perf-connections=64 --perf-requests-per-connection=keepalive,1,10 --perf-json benchmarks/results/sweep-reuse.json
time $P tests/perf/test_throughput.py --perf-workloads=json --perf-connections=64 --perf-rates=20,50,100,200,500,1000,2000,4000,8000 --perf-rate-connections=256 --perf-json benchmarks/results/sweep-rates.json
time $P tests/perf/test_throughput.py --perf-workloads=site --perf-connections=64 --perf-json benchmarks/results/site-wrk.json
time $P tests/perf/test_locust.py --perf-locust-users=64 --perf-locust-workers=0,1 --perf-json benchmarks/results/site-locust.json
