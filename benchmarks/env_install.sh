#!/usr/bin/env bash
# Environment install time: uv sync --locked (this tree) vs pip install -e .[test] (the tree before the lock), cold and warm caches.
set -u
rm -rf /tmp/uvc /tmp/pipc /tmp/e-*
t() { local s=$(date +%s.%N); "$@" >/dev/null 2>&1; local rc=$?; echo "$(echo "$(date +%s.%N) - $s" | bc) s rc=$rc load=$(cut -d' ' -f1 /proc/loadavg)"; }
cd "$(dirname "$0")/.."
echo "uv cold: $(t env UV_CACHE_DIR=/tmp/uvc UV_PROJECT_ENVIRONMENT=/tmp/e-uv1 uv sync -q --locked --extra test --group native --python python3)"
echo "uv warm: $(t env UV_CACHE_DIR=/tmp/uvc UV_PROJECT_ENVIRONMENT=/tmp/e-uv2 uv sync -q --locked --extra test --group native --python python3)"
cd "${BEFORE_TREE:?set BEFORE_TREE to a clone of the tree before the lock, e.g. git clone . /tmp/before && git -C /tmp/before checkout 1953384}"
pipi() { python3 -m venv $1 && env -u PIP_FIND_LINKS PIP_CACHE_DIR=/tmp/pipc $1/bin/python -m pip install -q --upgrade pip && env -u PIP_FIND_LINKS PIP_CACHE_DIR=/tmp/pipc $1/bin/python -m pip install -q -e ".[test]" && env -u PIP_FIND_LINKS PIP_CACHE_DIR=/tmp/pipc $1/bin/python -m pip install -q --no-deps "meinheld>=1.0.2" && env -u PIP_FIND_LINKS PIP_CACHE_DIR=/tmp/pipc $1/bin/python -m pip install -q "bjoern>=3.2"; }
echo "pip cold: $(t pipi /tmp/e-pip1)"
echo "pip warm: $(t pipi /tmp/e-pip2)"
