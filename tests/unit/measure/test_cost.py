"""The cost measurement's pure parts: callgrind's file format, who owns a module or object, the
listening-socket lookup for pre-fork workers, and the server's fixed environment."""

import os
import socket

from serverbench.catalog.apps import APPS
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.measure.callgrind import VGDB_NAME_VARIABLES, VGDB_PREFIX, read_dump, remove_pipes, vgdb_environment
from serverbench.measure.cost import PAD_VARIABLE, STACK_BLOCK, CostPlan, fixed_environment
from serverbench.measure.packages import Owners, isa_level
from serverbench.measure.pytrace import _module_of_path
from serverbench.measure.workers import holders, listening_inode

DUMP = """# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4242
cmd:  /venv/bin/python -m gunicorn app:app
part: 1
positions: line
events: Ir
summary: 1600

ob=(1) /usr/lib/libpython3.11.so.1.0
fl=(1) ceval.c
fn=(1) _PyEval_EvalFrameDefault
10 1000
+2 200
cob=(2) /usr/lib/x86_64-linux-gnu/libc.so.6
cfl=(2) memcpy.S
cfn=(2) memcpy
calls=3 0
12 300
ob=(2)
fl=(2)
fn=(2)
0 300
ob=(1)
fn=(1)
14 100
"""


def test_dump_keeps_self_cost_per_function(tmp_path):
    """Self cost goes to (object, function); a call's inclusive cost is not counted twice."""
    path = tmp_path / "callgrind.4242.1"
    path.write_text(DUMP)
    dump = read_dump(path)
    assert (dump.pid, dump.instructions) == (4242, 1600)
    assert dump.command == "/venv/bin/python -m gunicorn app:app"
    assert dump.functions == {
        ("/usr/lib/libpython3.11.so.1.0", "_PyEval_EvalFrameDefault"): 1300,
        ("/usr/lib/x86_64-linux-gnu/libc.so.6", "memcpy"): 300,
    }


def test_the_pipes_of_a_killed_server_are_removed_and_no_others(tmp_path):
    """remove_pipes removes vgdb's pipes of the pids that logged into the folder, and leaves another pid's."""
    (tmp_path / "valgrind.999991.log").write_text("")
    mine = [
        f"{VGDB_PREFIX}-from-vgdb-to-999991-by-root-on-host",
        f"{VGDB_PREFIX}-shared-mem-vgdb-999991-by-root-on-host",
    ]
    other = f"{VGDB_PREFIX}-from-vgdb-to-9999912-by-root-on-host"
    for name in [*mine, other]:
        open(name, "w").close()
    try:
        remove_pipes(tmp_path)
        assert [os.path.exists(n) for n in mine] == [False, False] and os.path.exists(other)
    finally:
        for name in [*mine, other]:
            if os.path.exists(name):
                os.unlink(name)


def test_owners_name_package_and_role():
    """Modules and shared objects map to the server, framework, driver, app, stdlib, interpreter or system."""
    owners = Owners.of(["gunicorn"], ["flask_app", "sitedata"], ["flask", "redis", "pymongo"])
    assert owners.of_module("gunicorn.http.message") == ("gunicorn", "server")
    assert owners.of_module("werkzeug.routing.map") == ("werkzeug", "framework")
    assert owners.of_module("redis.client") == ("redis", "driver")
    assert owners.of_module("flask_app") == ("flask_app", "app")
    assert owners.of_module("json.encoder") == ("json", "standard library")
    assert owners.of_object("/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0") == ("cpython", "interpreter")
    assert owners.of_object("/x/lib/python3.11/lib-dynload/_json.cpython-311-x86_64-linux-gnu.so") == (
        "_json",
        "standard library",
    )
    assert owners.of_object("/v/lib/python3.11/site-packages/markupsafe/_speedups.cpython-311.so") == (
        "markupsafe",
        "framework",
    )
    assert owners.of_object("/usr/lib/x86_64-linux-gnu/libc.so.6")[1] == "system"


def test_module_of_a_file_no_module_claims():
    """A file under site-packages gets its dotted module name; others their stem."""
    assert _module_of_path("/v/lib/python3.11/site-packages/werkzeug/routing/map.py") == "werkzeug.routing.map"
    assert _module_of_path("/v/lib/python3.11/site-packages/gunicorn/__init__.py") == "gunicorn"
    assert _module_of_path("<frozen importlib._bootstrap>") == "importlib._bootstrap"


def test_isa_level_is_a_level_not_a_model():
    """The counting environment names an x86-64 level (or the machine), never a CPU model."""
    assert isa_level().startswith("x86-64") or "x86" not in isa_level()


def test_listening_socket_holders_are_found():
    """The process holding a listening socket is found through /proc."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        inode = listening_inode(sock.getsockname()[1])
        assert inode is not None
        assert holders([os.getpid()], inode) == [os.getpid()]


def test_fixed_environment_has_a_constant_size(apps_dir):
    """Arguments plus environment always add up to the same size, whatever the port or paths."""

    def size(port, env):
        plan = CostPlan(registry()["waitress-t4"], APPS["flask"], WORKLOADS["json"], apps_dir=apps_dir, env=env)
        prefix = fixed_environment(plan, port)
        argv = plan.variant.argv(
            python=plan.python,
            bindir=os.path.dirname(plan.python),
            host="127.0.0.1",
            port=port,
            target="flask_app:app",
            module="flask_app",
            callable="app",
            apps_dir=str(apps_dir),
        )
        assert prefix[1] == "-i" and any(p.startswith(PAD_VARIABLE + "=") for p in prefix)
        return sum(len(a) + 1 for a in argv) + sum(len(e) + 1 for e in prefix[2:])

    assert size(10000, {}) == size(32767, {"SERVERBENCH_REDIS_URL": "redis://127.0.0.1:16379/0"}) == STACK_BLOCK


def test_only_runtime_extras_key_a_cost_baseline():
    """A runtime extra's requirement counts; test, development, meta and other-platform extras do not
    (twisted's lists hypothesis and pyflakes, which never run in a server)."""
    from packaging.requirements import Requirement

    from serverbench.measure.packages import _applies

    extras = ["tls", "http2", "dev", "dev-release", "test", "all-non-platform", "windows-platform", "mypy"]
    assert _applies(Requirement("pyopenssl; extra == 'tls'"), extras)
    assert _applies(Requirement("h2; extra == 'http2'"), extras)
    for extra in extras[2:]:
        assert not _applies(Requirement(f"hypothesis; extra == '{extra}'"), extras), extra
    assert _applies(Requirement("click"), [])


def test_paused_gunicorn_workers_outlive_a_long_window(apps_dir):
    """The counted server's environment raises gunicorn's worker timeout above any window: the workers paused
    while one serves send no heartbeat, and at the default 30 s the arbiter killed them mid-window on /upstream."""
    from serverbench.measure.cost import PAUSED_WORKER_TIMEOUT_S

    plan = CostPlan(registry()["gunicorn-sync-w2"], APPS["flask"], WORKLOADS["upstream"], apps_dir=apps_dir)
    env = dict(p.split("=", 1) for p in fixed_environment(plan, 10000)[2:])
    assert env["GUNICORN_CMD_ARGS"] == f"--timeout {PAUSED_WORKER_TIMEOUT_S}"
    assert PAUSED_WORKER_TIMEOUT_S > 200 * 0.1 * 10  # 200 requests of 100 ms, ten times slower under valgrind


def test_the_counted_server_is_read_once_its_process_tree_settles():
    """A worker forked after the first look (gunicorn --preload forks one by one) is waited for: the pids come
    back only once the tree has not changed for the settle time."""
    from serverbench.measure.workers import settled

    looks = iter([[1, 2], [1, 2, 3], [1, 2, 3, 4]])
    last = [[1, 2, 3, 4]]

    def tree(leader):
        return next(looks, last[0])

    assert settled(1, 1, tree, settle_s=0.05, cap_s=5) == [1, 2, 3, 4]


def test_a_tree_that_never_settles_is_read_at_the_cap():
    """A server that keeps forking is not waited for forever: the pids at the cap are used."""
    import itertools

    from serverbench.measure.workers import settled

    counter = itertools.count(2)
    assert len(settled(1, 1, lambda leader: [1, next(counter)], settle_s=0.05, cap_s=0.3)) == 2


def test_a_tree_whose_declared_workers_hold_the_socket_is_read_before_the_settle_time():
    """When as many workers as the variant declares hold the listening socket, the tree is read without waiting
    the whole settle time (every worker holds the socket from its fork on)."""
    import subprocess
    import sys
    import time

    from serverbench.measure.workers import settled

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], pass_fds=[sock.fileno()])
        try:
            tree = [1, os.getpid(), child.pid]
            began = time.monotonic()
            assert settled(1, port, lambda leader: tree, workers=2, settle_s=20, cap_s=30) == tree
            assert time.monotonic() - began < 5
            assert settled(1, port, lambda leader: tree, workers=3, settle_s=0.05, cap_s=0.5) == tree  # one short
        finally:
            child.kill()
            child.wait()


def test_a_vgdb_command_that_reaches_no_process_names_the_pid():
    """A monitor command sent to a pid no valgrind runs fails with the pid and vgdb's own words."""
    import shutil

    import pytest

    from serverbench.measure.callgrind import CountingError, control

    if shutil.which("vgdb") is None:
        pytest.skip("valgrind is not installed (`apt-get install valgrind`)")
    with pytest.raises(CountingError, match="for pid 4194303 failed"):
        control([4194303], "dump")


def test_vgdb_and_the_counted_server_name_their_fifos_alike(apps_dir, monkeypatch):
    """The counted server's environment has none of the variables valgrind names its FIFOs by, and vgdb is run
    without them too, whoever the caller is (a login shell sets USER and LOGNAME)."""
    monkeypatch.setenv("USER", "runner")
    monkeypatch.setenv("LOGNAME", "runner")
    plan = CostPlan(registry()["waitress-t4"], APPS["flask"], WORKLOADS["json"], apps_dir=apps_dir)
    server = {item.split("=", 1)[0] for item in fixed_environment(plan, 8000)[2:]}
    assert not server & set(VGDB_NAME_VARIABLES)
    vgdb = vgdb_environment(os.environ)
    assert not set(vgdb) & set(VGDB_NAME_VARIABLES) and vgdb["PATH"] == os.environ["PATH"]
