"""`serverbench services` as a user runs it: the three backends answer at the URLs it prints, and SIGINT or SIGTERM
stops them all and exits 0, also when the command runs as a shell's background job (SIGINT ignored at its start)."""

from __future__ import annotations

import signal
import subprocess
import sys
import urllib.request

import pymongo
import pytest
import redis

from tests.integration.processes import still_running

pytestmark = pytest.mark.usefixtures("no_leaks")


def ignore_sigint() -> None:
    """What a non-interactive shell does to a job it starts with `&`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize(
    "stop, setup",
    [(signal.SIGINT, None), (signal.SIGTERM, None), (signal.SIGINT, ignore_sigint)],
    ids=["sigint", "sigterm", "sigint-as-a-background-job"],
)
def test_services_answer_at_the_printed_urls_and_a_signal_stops_them(stop, setup):
    """The printed SERVERBENCH_* URLs answer (Redis PING, Mongo ping, the upstream's 200); the signal ends the
    command with exit 0 within 30 s and no service it named is left running."""
    command = subprocess.Popen(
        [sys.executable, "-m", "serverbench", "services"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=setup,
    )
    try:
        lines = [command.stdout.readline().strip() for _ in range(6)]
        urls = dict(line.removeprefix("export ").replace("'", "").split("=", 1) for line in lines[:3])
        pids = [int(line.rsplit("pid ", 1)[1]) for line in lines[3:]]
        assert sorted(urls) == ["SERVERBENCH_MONGO_URL", "SERVERBENCH_REDIS_URL", "SERVERBENCH_UPSTREAM_URL"], lines
        assert redis.Redis.from_url(urls["SERVERBENCH_REDIS_URL"]).ping()
        with pymongo.MongoClient(urls["SERVERBENCH_MONGO_URL"], serverSelectionTimeoutMS=5000) as mongo:
            assert mongo.admin.command("ping")["ok"] == 1
        with urllib.request.urlopen(urls["SERVERBENCH_UPSTREAM_URL"], timeout=5) as answer:
            assert answer.status == 200
        command.send_signal(stop)
        assert command.wait(timeout=30) == 0, command.stderr.read()
    finally:
        if command.poll() is None:
            command.kill()
            command.wait()
        command.stdout.close()
        command.stderr.close()
    assert still_running(pids) == []
