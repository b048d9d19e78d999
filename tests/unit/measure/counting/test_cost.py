"""The counted server's fixed environment (measure.counting.cost): a constant size, gunicorn's worker timeout, and no
variable vgdb names its FIFOs by."""

import os

from serverbench.catalog.apps import APPS
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.measure.counting.callgrind import VGDB_NAME_VARIABLES, vgdb_environment
from serverbench.measure.counting.cost import PAD_VARIABLE, STACK_BLOCK, CostPlan, fixed_environment


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


def test_paused_gunicorn_workers_outlive_a_long_window(apps_dir):
    """The counted server's environment raises gunicorn's worker timeout above any window: the workers paused
    while one serves send no heartbeat, and at the default 30 s the arbiter killed them mid-window on /upstream."""
    from serverbench.measure.counting.cost import PAUSED_WORKER_TIMEOUT_S

    plan = CostPlan(registry()["gunicorn-sync-w2"], APPS["flask"], WORKLOADS["upstream"], apps_dir=apps_dir)
    env = dict(p.split("=", 1) for p in fixed_environment(plan, 10000)[2:])
    assert env["GUNICORN_CMD_ARGS"] == f"--timeout {PAUSED_WORKER_TIMEOUT_S}"
    assert PAUSED_WORKER_TIMEOUT_S > 200 * 0.1 * 10  # 200 requests of 100 ms, ten times slower under valgrind


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


def test_the_counted_server_starts_without_address_randomisation_where_the_machine_allows_it(tmp_path, monkeypatch):
    """setarch -R prefixes the count when it runs here; a setarch the machine refuses (Docker's seccomp) gives none."""
    import subprocess

    from serverbench.measure.counting import cost

    command = cost.fixed_layout.__wrapped__()
    if command:
        assert command[-1] == "-R" and subprocess.run([*command, "true"], check=False).returncode == 0
    refused = tmp_path / "setarch"
    refused.write_text("#!/bin/sh\necho 'setarch: failed to set personality: Operation not permitted' >&2\nexit 1\n")
    refused.chmod(0o755)
    monkeypatch.setattr(cost.shutil, "which", lambda name: str(refused) if name == "setarch" else None)
    assert cost.fixed_layout.__wrapped__() == ()
    monkeypatch.setattr(cost.shutil, "which", lambda name: None)
    assert cost.fixed_layout.__wrapped__() == ()


def test_an_xdist_workers_port_range_does_not_reach_the_counted_server(apps_dir, monkeypatch):
    """SERVERBENCH_PORTS (the harness's, set in each xdist worker) is left out; an app's knob is passed."""
    from serverbench.processes.ports import PORTS_ENV

    monkeypatch.setenv(PORTS_ENV, "20000-20999")
    monkeypatch.setenv("SERVERBENCH_WORK_ITERS", "10")
    plan = CostPlan(registry()["waitress-t4"], APPS["flask"], WORKLOADS["json"], apps_dir=apps_dir)
    names = {item.split("=", 1)[0] for item in fixed_environment(plan, 8000)[2:]}
    assert PORTS_ENV not in names and "SERVERBENCH_WORK_ITERS" in names
