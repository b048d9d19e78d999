"""Real servers and real Redis: starting, stopping, failing, verifying.  No load beyond a few seconds."""

import os
import signal
import socket
import threading
from contextlib import contextmanager

import pytest

from serverbench.backends.mongo import start_mongo
from serverbench.backends.redis import connect_redis, start_redis
from serverbench.backends.upstream import start_upstream
from serverbench.catalog.apps import APPS
from serverbench.catalog.contract import ENDPOINTS, REDIS_VALUE
from serverbench.catalog.matrix import Cell
from serverbench.catalog.shapes import LoadShape
from serverbench.catalog.variants import registry
from serverbench.drivers.wrk import WrkDriver
from serverbench.errors import (
    BackendUnreachable,
    MissingBinaryError,
    ServerDiedError,
    ServerStartError,
    VerificationError,
)
from serverbench.measure.host.machine import machine_info
from serverbench.measure.serving.servers import ServerPool, interpreter, start_variant, unavailable_reason
from serverbench.processes.executors import free_port, require_binary
from tests.integration.processes import gone, settled_tree

pytestmark = pytest.mark.usefixtures("no_leaks")
VARIANTS = registry()


@pytest.fixture(scope="module")
def redis_service():
    service = start_redis()
    yield service
    service.stop()


@pytest.fixture(scope="module")
def mongo_and_upstream():
    mongo = start_mongo()
    try:
        upstream = start_upstream()
        try:
            yield {"SERVERBENCH_MONGO_URL": mongo.url, "SERVERBENCH_UPSTREAM_URL": upstream.url}
        finally:
            upstream.stop()
    finally:
        mongo.stop()


def test_start_stop_leaves_no_process(apps_dir):
    """Stopping a variant ends its whole process tree (gunicorn master and workers)."""
    server = start_variant(VARIANTS["gunicorn-sync-w2"], apps_dir=apps_dir)
    try:
        tree = [p.pid for p in settled_tree(server.pid, 3)]
    finally:
        server.stop()
    assert len(tree) == 3, "gunicorn -w 2 should run a master and two workers"
    assert not [pid for pid in tree if not gone(pid)]


def test_server_that_cannot_start_shows_its_log_tail(tmp_path):
    """A variant whose app cannot be imported fails with the server's own error in the message, and leaves no log."""
    (tmp_path / "logs").mkdir()
    with pytest.raises(ServerStartError) as info:
        start_variant(VARIANTS["gunicorn-sync-w2"], apps_dir=tmp_path, timeout=20, log_dir=tmp_path / "logs")
    assert list((tmp_path / "logs").iterdir()) == [], "the log's tail is in the error; the file is gone"
    text = str(info.value)
    assert "gunicorn-sync-w2/flask did not start" in text
    assert "No module named 'flask_app'" in text
    assert "command:" in text and "gunicorn" in text


def test_port_taken_is_reported_with_its_owner(apps_dir):
    """Starting on a port someone listens on names the owner and the fix."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        with pytest.raises(ServerStartError, match=rf"port {port} is already in use by pid {os.getpid()}.*--perf-port"):
            start_variant(VARIANTS["gunicorn-sync-w2"], apps_dir=apps_dir, port=port)


@contextmanager
def killed_a_second_in(server):
    """SIGKILL to the server's process group a second after it is entered (into the trial it is held around)."""
    killer = threading.Timer(1.0, os.killpg, args=(server.pid, signal.SIGKILL))
    killer.start()
    try:
        yield
    finally:
        killer.join()


def test_killed_server_mid_run_is_reported(served_trial):
    """A server that dies during the measured phase makes the trial fail with its exit and log."""
    with pytest.raises(ServerDiedError, match="gunicorn-sync-w2 exited"):
        served_trial("gunicorn-sync-w2", LoadShape(8, 3), WrkDriver(threads=1), during=killed_a_second_in)


def test_wrong_answer_fails_verification_with_a_diff(tmp_path):
    """An app that answers /json wrongly is refused before any load, with expected and got."""
    (tmp_path / "flask_app.py").write_text(
        "from flask import Flask, jsonify\napp = Flask(__name__)\n"
        "@app.route('/plaintext')\ndef p():\n    return 'Hello, World!', 200, {'Content-Type': 'text/plain'}\n"
        "@app.route('/json')\ndef j():\n    return jsonify(message='Goodbye')\n"
    )
    pool = ServerPool(
        lambda c: start_variant(c.variant, app=c.app, apps_dir=tmp_path), [ENDPOINTS["plaintext"], ENDPOINTS["json"]]
    )
    cell = Cell(VARIANTS["gunicorn-sync-w2"], APPS["flask"])
    with pytest.raises(VerificationError, match=r"/json: JSON \{'message': 'Goodbye'\} != expected"):
        pool.get(cell)
    with pytest.raises(VerificationError):  # remembered, not restarted for every test
        pool.get(cell)
    pool.close()


@pytest.mark.parametrize("name", list(VARIANTS))
def test_every_variant_honours_the_contract(name, apps_dir, redis_service, mongo_and_upstream):
    """Each declared variant starts with its reference app, answers every endpoint as the contract says, and stops.

    Only a row kept for a server that cannot run here, or one for another interpreter, is skipped:
    the project's environment installs every other server, so a missing one fails.
    """
    variant = VARIANTS[name]
    if variant.unsupported or interpreter() not in variant.interpreters:
        pytest.skip(unavailable_reason(variant))
    reason = unavailable_reason(variant)
    assert reason is None, reason
    redis_service.seed()
    env = {"SERVERBENCH_REDIS_URL": redis_service.url, **mongo_and_upstream}
    pool = ServerPool(lambda c: start_variant(c.variant, app=c.app, apps_dir=apps_dir, env=env), ENDPOINTS.values())
    try:
        pool.get(Cell(variant, variant.default_app))  # every endpoint its app serves
    finally:
        pool.close()
    if variant.default_app.lacks(["redis"]):
        return
    with redis_service.client() as client:
        assert int(client.get("serverbench:counter")) >= 1, "the /redis endpoint did not INCR the counter"


def test_redis_proc_serves_the_seeded_value_and_stops():
    """redis-server starts on a free port with the contract's value, and is gone after stop."""
    service = start_redis()
    pid = service.pid
    with service.client() as client:
        assert client.get("serverbench:value") == REDIS_VALUE
        assert client.config_get("save")["save"] == ""
    service.stop()
    assert gone(pid)


def test_unreachable_redis_url_names_the_fix():
    """--redis-url pointing at nothing is a clear error with the remedy."""
    with pytest.raises(BackendUnreachable, match=r"did not answer.*drop --redis-url"):
        connect_redis(f"redis://127.0.0.1:{free_port()}/0")


def test_missing_binary_names_the_package(monkeypatch, tmp_path):
    """A missing wrk or redis-server is an error saying how to install it."""
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(MissingBinaryError, match=r"wrk was not found on PATH.*apt-get install wrk"):
        require_binary("wrk", "wrk")


def test_generator_cpu_is_measured(served_trial):
    """A short real trial records wrk's own CPU time and the server's CPU and memory."""
    result = served_trial("gunicorn-sync-w2", LoadShape(8, 1), WrkDriver(threads=1), machine=machine_info("wrk"))
    assert result.requests > 0 and result.rps > 0
    assert 0 < result.generator.cpu_s <= result.generator.wall_s * 1.05
    assert result.server_cpu_s > 0 and result.server_rss_mb > 10
