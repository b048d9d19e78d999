"""The deterministic injection knob reaches every reference app's requests (in process, one subprocess per setting,
since an app reads SERVERBENCH_WORK_ITERS when it is imported)."""

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from serverbench.catalog.apps import PYTHON_APPS as APPS

HANDLERS_DIR = Path(__file__).resolve().parent
APPS_DIR = HANDLERS_DIR.parents[1] / "apps"
# Loads every app through the in-process callers and answers {app: [status, headers]} for one GET /json each.
_ANSWER_JSON = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from callers import load
from serverbench.catalog.apps import PYTHON_APPS as APPS
answers = {}
for name, app in APPS.items():
    loaded = load(app, Path(sys.argv[2]))
    loaded.activate()
    answer = loaded.caller.get("/json")
    loaded.caller.close()
    answers[name] = [answer.status, {k.lower(): v for k, v in answer.headers.items()}]
print(json.dumps(answers))
"""


@functools.cache
def answers(iters):
    """Every app's answer to GET /json with the knob unset (None) or set to ``iters``."""
    env = {k: v for k, v in os.environ.items() if k != "SERVERBENCH_WORK_ITERS"}
    if iters is not None:
        env["SERVERBENCH_WORK_ITERS"] = iters
    done = subprocess.run(
        [sys.executable, "-c", _ANSWER_JSON, str(HANDLERS_DIR), str(APPS_DIR)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize("app_name", list(APPS))
def test_every_app_runs_the_loop_per_request(app_name):
    """With SERVERBENCH_WORK_ITERS=1000 a request runs the loop 1000 times: the header carries 1000 and the
    sum of 0..999, which only that many iterations give."""
    status, headers = answers("1000")[app_name]
    assert status == 200
    assert headers.get("x-serverbench-work") == "1000 499500"


@pytest.mark.parametrize("iters", [None, "0"])
@pytest.mark.parametrize("app_name", list(APPS))
def test_no_app_adds_anything_unless_the_knob_is_set(app_name, iters):
    """Unset or 0: no hook is installed, so no response carries the header."""
    status, headers = answers(iters)[app_name]
    assert status == 200
    assert "x-serverbench-work" not in headers
