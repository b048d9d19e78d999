"""What a door asks of the gate (serverbench.gate.options): the arguments declared once for the gate's command line
and bisect's --gate-args, read into GateOptions as given.  No values are judged here (that is resolve's)."""

import argparse
import sys

import pytest

from serverbench.gate.options import SHARED, GateOptions, add_arguments
from serverbench.judge.ab import GATE_BLOCKS


def _parsed(*argv) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_arguments(p)
    return p.parse_args(argv)


def test_no_option_given_reads_the_gates_defaults():
    """The arguments alone, none given: the options' defaults (the shared ones left to the gate's own)."""
    assert GateOptions.of(_parsed()) == GateOptions()
    assert GateOptions().blocks == GATE_BLOCKS and GateOptions().rate == "auto" and GateOptions().shared == {}
    assert (GateOptions().base_python, GateOptions().cand_python) == (sys.executable, sys.executable)


def test_each_option_is_read_as_given():
    """Repeated environments become tuples, the shared options' text is kept by option name, numbers are parsed."""
    options = GateOptions.of(
        _parsed(
            *("--base-env", "A=1", "--base-env", "B", "--cand-env", "C=3", "--mode", "sequential", "--blocks", "7"),
            *("--rounds", "1", "--duration", "9", "--redis-url", "redis://x", "--rate", "off", "--load", "0.5"),
            *("--alpha", "0.05", "--cells", "3", "--min-effect", "0.1", "--retries", "2", "--cost-repeats", "0"),
        )
    )
    assert (options.base_env, options.cand_env) == (("A=1", "B"), ("C=3",))
    assert (options.mode, options.blocks, options.rounds, options.rate, options.load) == (
        "sequential",
        7,
        1,
        "off",
        0.5,
    )
    assert options.shared == {"perf_duration": "9", "redis_url": "redis://x"}
    assert (options.alpha, options.cells, options.min_effect, options.retries, options.cost_repeats) == (
        0.05,
        3,
        0.1,
        2,
        0,
    )


def test_a_doors_own_arguments_are_read_too():
    """The cell and the arms' sources a door declares itself (endpoint repeatable: the endpoints) are taken."""
    args = argparse.Namespace(**vars(_parsed()), variant="aiohttp", endpoint=["a", "b"], repo="/r", base_ref="v1")
    options = GateOptions.of(args)
    assert (options.variant, options.endpoints, options.repo, options.base_ref) == ("aiohttp", ("a", "b"), "/r", "v1")


def test_the_shared_options_are_the_option_tables_flags():
    """Every option shared with the pytest session has its table flag; an unknown argument is argparse's error."""
    p = argparse.ArgumentParser()
    add_arguments(p)
    dests = {a.dest for a in p._actions}
    assert set(SHARED) <= dests
    with pytest.raises(SystemExit):
        p.parse_args(["--variant", "x"])


def test_the_hosts_inventory_is_read_from_the_environment_once_at_the_door(tmp_path):
    """SERVERBENCH_HOSTS (`serverbench hosts simulate` sets it), its blanks stripped, is the options' inventory; none
    without it or with it blank."""
    inventory = tmp_path / "hosts.toml"
    assert GateOptions.of(_parsed(), {"SERVERBENCH_HOSTS": f" {inventory} ", "HOME": "/nowhere"}).hosts == inventory
    assert GateOptions.of(_parsed(), {"SERVERBENCH_HOSTS": " "}).hosts is None
    assert GateOptions.of(_parsed(), {}).hosts is None
