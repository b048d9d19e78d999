"""The A/B plan: the gate's defaults from the option table, every problem reported at once; no server starts."""

import dataclasses

import pytest

from serverbench.catalog.apps import APPS
from serverbench.catalog.matrix import Cell
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.cli.gate import main as gate_main
from serverbench.cli.gate import parser
from serverbench.config.options import OPTIONS_BY_NAME
from serverbench.errors import ConfigError
from serverbench.gate.plan import ABPlan, Arm
from serverbench.judge.ab import GATE_BLOCKS, GATE_POLICY

AIOHTTP = registry()["aiohttp"]
CELL = Cell(AIOHTTP, AIOHTTP.default_app)


def test_the_plan_defaults_are_the_gates_proven_configuration():
    """32 connections, 2 s windows, 1 s warm-up (the option table's gate defaults), 12 blocks, the gate's policy."""
    plan = ABPlan(CELL, WORKLOADS["json"], Arm("base"), Arm("candidate"))
    assert (plan.connections, plan.duration, plan.warmup, plan.rate_duration) == (32, 1, 1, 1)
    assert (plan.blocks, plan.policy, plan.rate, plan.load) == (GATE_BLOCKS, GATE_POLICY, "auto", 0.25)
    assert plan.name == "aiohttp/aiohttp json c32" and plan.mode in ("simultaneous", "sequential")


def test_every_problem_of_a_plan_is_reported_at_once():
    """Same labels, a load outside (0, 1), a rate that is no number, a URL mix with a fixed rate, a window of
    0 s: one ConfigError lists them all, each with today's message."""
    with pytest.raises(ConfigError) as info:
        ABPlan(CELL, WORKLOADS["site"], Arm("x"), Arm("x"), load=1.5, duration=0)
    text = str(info.value)
    assert text.startswith("the A/B plan has 4 problems:")
    assert "the two arms need different labels, both are 'x'" in text
    assert "load=1.5: the fixed rate must be a fraction in (0, 1)" in text
    assert "workload site is a URL mix; the fixed-rate driver (oha) runs one URL" in text
    assert "duration=0: expected a whole number from 1 to 3600, got 0" in text
    with pytest.raises(ConfigError, match=r"^rate='fast': give requests/s > 0, 'auto'"):
        ABPlan(CELL, WORKLOADS["json"], Arm("base"), Arm("candidate"), rate="fast")


def test_a_workload_needs_its_backends_url_in_the_environment():
    """Every backend the workload uses must be handed to the servers; with it the plan is valid."""
    with pytest.raises(ConfigError, match="workload mongo-small needs Mongo: pass its URL as SERVERBENCH_MONGO_URL"):
        ABPlan(CELL, WORKLOADS["mongo-small"], Arm("base"), Arm("candidate"))
    plan = ABPlan(
        CELL,
        WORKLOADS["redis"],
        Arm("base"),
        Arm("candidate"),
        backend_env={"SERVERBENCH_REDIS_URL": "redis://127.0.0.1:1/0"},
    )
    assert plan.backend_env["SERVERBENCH_REDIS_URL"].startswith("redis://")


def test_an_app_of_another_interface_is_refused():
    """aiohttp cannot load a WSGI app."""
    with pytest.raises(ConfigError, match="aiohttp loads aiohttp apps; flask is wsgi"):
        ABPlan(Cell(AIOHTTP, APPS["flask"]), WORKLOADS["json"], Arm("base"), Arm("candidate"))


def test_gate_options_shared_with_pytest_come_from_the_option_table():
    """--duration, --warmup, --connections, --max-error-rate and the backend URLs: the table's flags, help and
    gate defaults; a bad value is refused by the table's parser naming the gate's flag (exit 2)."""
    actions = {a.dest: a for a in parser()._actions}
    for name in ("perf_duration", "perf_warmup", "perf_connections", "perf_max_error_rate", "redis_url"):
        option = OPTIONS_BY_NAME[name]
        assert option.command_flag in actions[name].option_strings and option.help in actions[name].help
    assert OPTIONS_BY_NAME["perf_connections"].default_in("gate") == (32,)
    assert OPTIONS_BY_NAME["perf_duration"].default_in("pytest") == 2


def test_gate_refuses_bad_shared_values_at_once(capsys):
    """Two bad values, two lines; several connection counts are refused (the gate drives one)."""
    assert gate_main(["--variant", "aiohttp", "--duration", "0", "--max-error-rate", "2"]) == 2
    err = capsys.readouterr().err
    assert "--duration='0': expected a whole number from 1 to 3600, got 0" in err
    assert "--max-error-rate='2': expected a fraction in [0.0, 1.0]" in err
    assert gate_main(["--variant", "aiohttp", "--connections", "16,64"]) == 2
    assert "--connections takes one count in the gate" in capsys.readouterr().err


def test_gate_without_variant_or_rejudge_is_a_usage_error(capsys):
    """--variant is required unless a stored decision is re-judged (argparse's usage error, exit 2)."""
    with pytest.raises(SystemExit) as info:
        gate_main([])
    assert info.value.code == 2 and "--variant" in capsys.readouterr().err


def test_the_plan_reads_no_hosts_inventory_of_its_own(monkeypatch):
    """A plan's inventory is the one it is given (the door resolved it): none by default, SERVERBENCH_HOSTS or not."""
    from serverbench.gate.plan import ABPlan

    monkeypatch.setenv("SERVERBENCH_HOSTS", "/tmp/hosts.toml")
    assert {f.name: f.default for f in dataclasses.fields(ABPlan)}["hosts"] is None
