"""The Node.js rows as data: which apps they serve and what they need installed (their skip reasons: measure/serving/test_servers.py)."""

import dataclasses
import shutil
import subprocess
from pathlib import Path

import pytest

from serverbench.catalog.apps import APPS, PYTHON_APPS
from serverbench.catalog.matrix import every_cell
from serverbench.catalog.variants import VARIANTS, registry, runtime_problems

NODE = ("node-http", "node-cluster-w2")
APPS_DIR = Path(__file__).resolve().parents[3] / "apps"
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")


def test_node_variants_serve_only_the_node_app():
    """The matrix pairs each node variant with the node app alone, and no Python variant with it."""
    matrix = every_cell(VARIANTS)
    assert {(c.variant.name, c.app.name) for c in matrix if c.variant.name in NODE} == {(n, "node") for n in NODE}
    assert {c.variant.name for c in matrix if c.app.name == "node"} == set(NODE)
    assert all(registry()[n].default_app.name == "node" for n in NODE)


def test_the_node_interface_refuses_python_apps():
    """A Python app declared on the node interface, or a node app on a Python interface, is a declaration problem."""
    wrong = [
        dataclasses.replace(APPS["flask"], name="flask-on-node", interface="node"),
        dataclasses.replace(APPS["node"], name="node-on-wsgi", interface="wsgi"),
    ]
    assert runtime_problems(wrong) == [
        "app 'flask-on-node' is a python app but interface 'node' loads node apps",
        "app 'node-on-wsgi' is a node app but interface 'wsgi' loads python apps",
    ]
    assert runtime_problems(APPS.values()) == []
    assert set(PYTHON_APPS) == set(APPS) - {"node", "play"}


def test_cluster_variant_runs_two_workers_of_the_same_server():
    """node-cluster-w2's command is node-http's with --workers 2, the server file found in the apps folder."""
    single, cluster = (registry()[n] for n in NODE)
    fields = dict(host="127.0.0.1", port=8000, module="node/server.js", apps_dir="/apps")
    assert single.argv(**fields) == [
        "node",
        "/apps/node/server.js",
        "--host",
        "127.0.0.1",
        "--port",
        "8000",
        "--workers",
        "1",
    ]
    assert cluster.argv(**fields)[-2:] == ["--workers", "2"]
    assert APPS["node"].target == "node/server.js"


@needs_node
@pytest.mark.parametrize(
    "env, expected",
    [
        ({"SERVERBENCH_WORK_ITERS": "ten"}, 'SERVERBENCH_WORK_ITERS="ten" is not a whole number >= 0'),
        ({}, "--workers 0 is not a whole number >= 1"),
    ],
)
def test_the_node_server_refuses_bad_settings_before_listening(env, expected):
    """A bad work knob or worker count stops server.js at once with the setting named (nothing listens)."""
    done = subprocess.run(
        ["node", str(APPS_DIR / "node" / "server.js"), "--port", "1", "--workers", "0"],
        env={"PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode != 0
    assert expected in done.stderr


@needs_node
def test_the_node_server_without_its_packages_names_npm_ci(tmp_path):
    """server.js copied away from its node_modules refuses to start and says which command installs them."""
    shutil.copy(APPS_DIR / "node" / "server.js", tmp_path / "server.js")
    done = subprocess.run(
        ["node", str(tmp_path / "server.js"), "--port", "1"],
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode != 0
    assert "package is not installed" in done.stderr and "npm ci --prefix apps/node" in done.stderr


@needs_node
def test_the_ab_gate_names_a_node_variant():
    """An A/B plan of node-cluster-w2 is valid with each arm's apps folder installed, and names the cell."""
    from serverbench.catalog.matrix import Cell
    from serverbench.catalog.workloads import WORKLOADS
    from serverbench.gate.plan import ABPlan, Arm

    variant = registry()["node-cluster-w2"]
    plan = ABPlan(
        Cell(variant, variant.default_app),
        WORKLOADS["json"],
        Arm("base", apps_dir=APPS_DIR),
        Arm("candidate", apps_dir=APPS_DIR),
        mode="sequential",
    )
    assert plan.name == "node-cluster-w2/node json c32"


def test_an_ab_arm_without_the_node_install_or_with_counted_cost_is_refused(tmp_path):
    """A base arm whose apps folder lacks node_modules (a fresh git worktree) and a cost signal are both refused."""
    from serverbench.catalog.matrix import Cell
    from serverbench.catalog.workloads import WORKLOADS
    from serverbench.errors import ConfigError
    from serverbench.gate.plan import ABPlan, Arm

    variant = registry()["node-http"]
    with pytest.raises(ConfigError) as info:
        ABPlan(
            Cell(variant, variant.default_app),
            WORKLOADS["json"],
            Arm("base", apps_dir=tmp_path),
            Arm("candidate", apps_dir=APPS_DIR),
            mode="sequential",
            cost_repeats=2,
        )
    text = str(info.value)
    assert "the base arm: node-http" in text and "npm ci --prefix apps/node" in text
    assert "the candidate arm" not in text or shutil.which("node") is None
    assert "cost_repeats=2: node is a node app and instructions are counted for Python servers only" in text


@pytest.mark.parametrize("variant", ["node-http", "node-cluster-w2", "play-pekko"])
def test_the_gate_counts_no_instructions_for_a_server_outside_python(variant, capsys):
    """Without --cost-repeats the gate gives node and Play no cost signal, and says why."""
    from serverbench.gate.options import GateOptions
    from serverbench.gate.resolve import cost_repeats
    from serverbench.gate.served import served

    checkout = Path(__file__).resolve().parents[3]
    assert cost_repeats(GateOptions(variant=variant), served(checkout, variant, None, None, (), "gate")) == 0
    assert "instructions are counted for Python servers only" in capsys.readouterr().err
