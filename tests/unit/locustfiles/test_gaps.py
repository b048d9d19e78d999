"""The gap listener (locustfiles.gaps) in a real locust, in a child process (importing locust patches this one)."""

import json
import os
import subprocess
import sys
import textwrap

from serverbench.drivers.locust import GAPS

GAPS_PROBE = textwrap.dedent("""
    import importlib.util, os, sys
    import gevent
    from locust import events
    spec = importlib.util.spec_from_file_location("gaps", sys.argv[1])
    gaps = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gaps)

    def user(start, answers):  # one user: requests at start, start + 1, ... each answered after 0.25 s
        for i in range(answers):
            events.request.fire(request_type="GET", name="/", response_time=250.0, response_length=0,
                                response=None, context={}, exception=None, start_time=start + i, url="/")
            gevent.sleep(0)

    gevent.joinall([gevent.spawn(user, 1000.0, 3), gevent.spawn(user, 5000.0, 2)])
    events.quitting.fire(environment=None)
""")


def test_the_gap_listener_times_each_user_from_an_answer_to_its_next_request(tmp_path):
    """locustfiles/gaps.py in a real locust: two users, each answered 0.25 s after a request sent every second:
    3 gaps of 0.75 s and the 2 users answered written to the folder GAPS_ENV names; without the variable nothing is
    written."""
    from serverbench.drivers.locust import GAPS_ENV, answered_users, mean_gap_ms

    env = {**{k: v for k, v in os.environ.items() if not k.startswith("LOCUST_")}, GAPS_ENV: str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", GAPS_PROBE, str(GAPS)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    written = list(tmp_path.glob("gaps-*.json"))
    assert len(written) == 1 and json.loads(written[0].read_text()) == {
        "pairs": 3,
        "gap_s": 2.25,
        "users": 2,
        "latency_us": {"250000": 5},
    }
    assert mean_gap_ms(written) == 750.0 and answered_users(written) == 2
    env.pop(GAPS_ENV)
    quiet = tmp_path / "unset"
    quiet.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", GAPS_PROBE, str(GAPS)], capture_output=True, text=True, env=env, timeout=120, cwd=quiet
    )
    assert done.returncode == 0 and not list(quiet.iterdir()), done.stderr[-2000:]
