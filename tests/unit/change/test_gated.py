"""A pull request's gate (change.gated): the gate's arguments after ``--``, the variants (each of perf_variants that
runs here, or those given) and one plan per variant with the budget split between all their cells; no server."""

import pytest

from serverbench.change.gated import gate_options, plans, variants
from serverbench.errors import ConfigError
from tests.unit.change.conftest import SETTINGS, commit


def test_the_arguments_after_the_separator_are_the_gates(tmp_path):
    """--duration, --rate, --retries read as the gate reads them; --variant and --endpoint kept."""
    options, named = gate_options(["--variant", "waitress-t4", "--duration", "1", "--rate", "off", "--retries", "0"])
    assert named == ("waitress-t4",)
    assert options.shared["perf_duration"] == "1" and options.rate == "off" and options.retries == 0
    assert gate_options(["--endpoint", "home"])[0].endpoints == ("home",)


@pytest.mark.parametrize("extra", [["--base-ref", "x"], ["--json", "d.json"], ["--retries", "many"]])
def test_a_mistake_after_the_separator_is_one_line_of_bad_input(extra):
    """An option ci owns (--base-ref, --json) or a bad value: a ConfigError naming the gate's arguments."""
    with pytest.raises(ConfigError, match="the gate's arguments after --: .*serverbench gate --help"):
        gate_options(extra)


def test_every_variant_of_perf_variants_is_gated_unless_named(repo):
    """Default: each of perf_variants that runs here, in order; given: those, once each."""
    commit(repo, {"pyproject.toml": SETTINGS}, "settings")
    assert variants(repo, []) == (["wsgiref", "waitress-t4"], [])
    assert variants(repo, ["waitress-t4", "waitress-t4"]) == (["waitress-t4"], [])


def test_several_variants_split_the_budget_between_all_their_cells(repo):
    """Two variants of two endpoints: four cells, each plan's policy split four ways; an unknown endpoint refused."""
    base = commit(repo, {"pyproject.toml": SETTINGS}, "settings")
    options, _ = gate_options(["--rate", "off"])
    gates = plans(repo, base, [], ["wsgiref", "waitress-t4"], options)
    assert [p.served.cell.variant.name for p in gates] == ["wsgiref", "waitress-t4"]
    assert {p.settings["policy"].cells for p in gates} == {4}
    assert [w.name for w in gates[0].served.workloads] == ["home", "create"]
    assert plans(repo, base, ["home"], ["wsgiref"], options)[0].settings["policy"].cells == 1
    with pytest.raises(ConfigError, match="unknown endpoint"):
        plans(repo, base, ["nope"], ["wsgiref"], options)
