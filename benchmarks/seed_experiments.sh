#!/usr/bin/env bash
# The seed comparisons of issue 16, rerun with the cross-language yardsticks (docs/lab/measurements.md#the-seed-experiments):
#   benchmarks/seed_experiments.sh events     gevent.pywsgi, Node and wsgiref on the event queues (~1 KB and
#                                             ~64 KB), keep-alive vs a connection per request at 64 clients, and
#                                             the open-model rate ladder 20..2,000 req/s; PyPy too when tox can
#   benchmarks/seed_experiments.sh mongo      Node, Play, gunicorn sync, gevent, uWSGI, tornado on the small and
#                                             big MongoDB documents and /sleep at 200 connections
#   benchmarks/seed_experiments.sh yardstick  every variant on /json and /redis at 64 connections (Node beside
#                                             the fastest Python variant, one session)
# Extra arguments go to pytest: `... events --collect-only -q` lists the tests without sending load.
# Run alone on the machine (never next to another load test).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: benchmarks/seed_experiments.sh events|mongo|yardstick [pytest args]" >&2; exit 2; }
what=$1; shift
R=benchmarks/results
P=(-m perf -p no:cacheprovider tests/perf/test_throughput.py)
case "$what" in
  events)
    E=(--perf-variants=gevent-pywsgi,gevent-pywsgi-nodelay,node-http,wsgiref --perf-apps=raw-wsgi,node
       --perf-workloads=events-1k,events-64k --perf-connections=64 --perf-requests-per-connection=keepalive,1
       --perf-rates=20,50,100,200,500,1000,2000)
    status=0  # a failed cell is a measured result: the PyPy rows still run
    .venv/bin/python -m pytest "${P[@]}" "${E[@]}" --perf-json $R/seed-events.json "$@" || status=$?
    if command -v pypy3 >/dev/null 2>&1; then  # the same Python cells under PyPy (node runs the same either way)
      # SecantusDB needs Python >= 3.10 (Debian's PyPy is 3.9): run it from the CPython venv and hand over its URL.
      .venv/bin/secantusd-py --host 127.0.0.1 --port 27117 --storage-path :memory: --standalone --log-level WARNING &
      mongo_pid=$!
      trap 'kill $mongo_pid 2>/dev/null; wait $mongo_pid 2>/dev/null' EXIT
      for _ in $(seq 60); do (exec 3<>/dev/tcp/127.0.0.1/27117) 2>/dev/null && break; sleep 1; done
      ./run tox -e perf-pypy3 -- --mongo-url 'mongodb://127.0.0.1:27117/?directConnection=true' \
        "${E[@]/node-http,/}" "$@" || status=$?
    else
      echo "seed_experiments: pypy3 is not installed; the PyPy rows need \`./run tox -e perf-pypy3\` (apt-get install pypy3 pypy3-dev)" >&2
    fi
    exit $status ;;
  mongo)
    .venv/bin/python -m pytest "${P[@]}" --perf-variants=node-http,play-pekko,gunicorn-sync-w2,gunicorn-gevent-w2,uwsgi-p2t2,uwsgi-gevent100,tornado \
      --perf-apps=raw-wsgi,node,play,tornado --perf-workloads=mongo-small,mongo-big,sleep --perf-connections=200 \
      --perf-json $R/seed-mongo.json "$@" ;;
  yardstick)
    .venv/bin/python -m pytest "${P[@]}" --perf-workloads=json,redis --perf-connections=64 \
      --perf-json $R/seed-yardstick.json "$@" ;;
  *) echo "unknown experiment $what: events, mongo or yardstick" >&2; exit 2 ;;
esac
