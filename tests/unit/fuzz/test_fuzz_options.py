"""Bad input, fuzzed (Hypothesis): every option and command line gives a value or a usage error naming it.

Each property counts the inputs it tried; ``pytest tests/unit/fuzz/test_fuzz_options.py -s`` prints the census
(docs/lab/robustness.md keeps it).
"""

from __future__ import annotations

import contextlib
import io
import math
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from serverbench.catalog.apps import APPS
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.cli import compare, gate, history, report, services
from serverbench.config.options import OPTIONS, OPTIONS_BY_NAME, resolve
from serverbench.errors import ConfigError
from serverbench.gate import resolve as resolve_gate
from serverbench.gate.options import GateOptions
from serverbench.gate.served import served
from serverbench.records import results as results_file
from tests.unit.fuzzing import census, fuzz  # noqa: F401 (census: a fixture)
from tests.unit.sample_records import result

ROOT, CWD = Path("/project"), Path("/elsewhere")

# Values near the edges of what the parsers accept, beside Hypothesis's own text.
EDGE_VALUES = [
    "",
    " ",
    "0",
    "-1",
    "1",
    "2/4",
    "0/0",
    "5/4",
    "inf",
    "-inf",
    "nan",
    "1e309",
    "1e-320",
    "9" * 5000,
    "0x10",
    "1_000",
    "١٢",
    "keepalive",
    "ka,1",
    ",",
    "1,,2",
    "true",
    "off",
    "http://127.0.0.1:1",
    "http://[::1",
    "http://127.0.0.1:99999",
    "redis://localhost/0",
    "mongodb://[::1]:27017/",
    "http://10.0.0.1:80",
    "~",
    "~nobody/x",
    "a\x00b",
    "\ud800",
    "\udcff",
    "/" * 300,
    "../" * 50,
]
EDGES = st.sampled_from(EDGE_VALUES)
NUMBERS = st.one_of(
    st.integers().map(str), st.floats().map(repr), st.from_regex(r"-?\d{1,4}(\.\d+)?(e-?\d{1,3})?", fullmatch=True)
)
VALUE = st.one_of(
    st.text(max_size=40),
    EDGES,
    NUMBERS,
    st.lists(st.one_of(EDGES, NUMBERS, st.text(max_size=8)), max_size=4).map(",".join),
)


def _numbers_are_finite(value) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, tuple):
        return all(_numbers_are_finite(v) for v in value)
    return True


@pytest.mark.parametrize("name", [o.name for o in OPTIONS])
def test_any_option_value_gives_a_value_or_an_error_naming_the_option(name, census):
    """Every option, on the command line and in ini: a finite value, or a ConfigError naming its flag or ini key."""
    option = OPTIONS_BY_NAME[name]

    def check(raw: str, as_list: bool) -> None:
        census[f"option {option.flag}"] += 1
        ini_raw = raw.split(",") if as_list else raw  # pytest hands linelist ini values over as lists
        for cli, ini, where in (({name: raw}, {}, option.flag), ({}, {name: ini_raw}, f"ini key {name}=")):
            try:
                config = resolve(cli, ini, ROOT, CWD)
            except ConfigError as exc:
                assert where in str(exc) or option.flag in str(exc), str(exc)
            else:
                assert all(_numbers_are_finite(v) for v in vars(config).values()), vars(config)

    for raw in EDGE_VALUES:
        check(raw, False)
    fuzz(80)(given(raw=VALUE, as_list=st.booleans())(check))()


GATE_VALUES = st.one_of(
    VALUE,
    st.sampled_from([*registry(), *APPS, *WORKLOADS, "auto", "off", "sequential", "simultaneous", "A=1", "=", "A"]),
)
# Files (--rejudge: test_fuzz_records), a git checkout (--base-ref) and interpreters that would be run are not fuzzed.
EXCLUDED = (
    "-h",
    "--help",
    "--rejudge",
    "--base-ref",
    "--repo",
    "--markdown",
    "--json",
    "--base-python",
    "--cand-python",
)
GATE_FLAGS = [s for a in gate.parser()._actions for s in a.option_strings if s not in EXCLUDED]


def _gate_checks(args, plan: bool = True) -> None:
    """What `gate` checks before it starts anything, in resolve's order, up to the plan (which runs each arm's
    interpreter once: ``plan`` False stops before it)."""
    options = GateOptions.of(args)
    if options.cost_repeats is None:  # no count asked: whether valgrind is installed here is not what is fuzzed
        options = replace(options, cost_repeats=0)
    what = served(ROOT, options.variant, options.app, options.workload, options.endpoints, "gate")
    resolved = resolve_gate.plan_for(what, options)
    rate = resolved.settings["rate"]
    assert rate is None or rate == "auto" or math.isfinite(rate)
    if not plan:
        return
    arms = tuple(replace(arm, apps_dir=ROOT / "apps") for arm in (resolved.base, resolved.candidate))
    resolved.decision(what.workloads[0], arms, {})


def _check_gate(argv: list[str], plan: bool = True) -> None:
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            args = gate.parser().parse_args(argv)
    except SystemExit as exc:
        assert exc.code == 2 and "error: argument" in err.getvalue()
        return
    try:
        with contextlib.redirect_stderr(err):
            _gate_checks(args, plan)
    except (ConfigError, ValueError) as exc:  # gate.main prints these as `error: ...` and exits 2
        named = [f.removeprefix("--").replace("-", "_") for f in GATE_FLAGS] + ["variant", "app", "workload", "mode"]
        assert any(n in str(exc).replace("-", "_") for n in named), str(exc)


def test_every_gate_option_at_every_edge_value_gives_a_value_or_a_usage_error(census):
    """Each gate option given each edge value alone: accepted, or an error naming the option (checked up to the plan)."""
    for flag in GATE_FLAGS:
        for value in EDGE_VALUES:
            census["gate arguments"] += 1
            _check_gate(["--variant", "aiohttp", flag, value], plan=False)


@fuzz(300)
@given(
    pairs=st.lists(st.tuples(st.sampled_from(GATE_FLAGS), GATE_VALUES), max_size=6),
    variant=st.sampled_from([*registry(), "nope"]),
)
def test_any_gate_command_line_gives_a_plan_or_a_usage_error(pairs, variant, census):
    """gate's arguments, checked as a live run checks them before starting anything: a plan or an error naming the option."""
    census["gate arguments"] += 1
    _check_gate(["--variant", variant] + [x for pair in pairs for x in (pair[0], pair[1])])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Eight results files of one cell: enough runs for history with its default --min-segment."""
    folder = tmp_path_factory.mktemp("runs")
    for k in range(8):
        r = result("test_json::gunicorn-sync/flask/json/c64", 1000.0 + 10 * k)
        results_file.write(folder / f"run{k}.json", {"id": "m1"}, [(r, None)], [], "0")
    return folder


def _run(main, argv) -> tuple[int, str]:
    """A command's exit status and its stderr; argparse's usage errors are exit status 2."""
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            return main(argv), err.getvalue()
        except SystemExit as exc:
            return exc.code, err.getvalue()


HISTORY_FLAGS = st.sampled_from(["--alpha", "--min-effect", "--min-segment"])


@fuzz(100)
@given(pairs=st.lists(st.tuples(HISTORY_FLAGS, VALUE), max_size=3))
def test_any_history_command_line_gives_a_verdict_or_a_usage_error(pairs, runs, census):
    """history's options over real runs: exit 0 or 1, or 2 with an error naming the option."""
    census["history arguments"] += 1
    status, err = _run(history.main, [str(runs)] + [x for p in pairs for x in p])
    assert status in (0, 1, 2)
    if status == 2:
        assert "error:" in err and any(f in err for f in ("--alpha", "--min-effect", "--min-segment")), err


PATHS = st.one_of(st.text(max_size=20), st.sampled_from(["", ".", "/", "missing/x.md", "a\x00b", "/proc/x", "\ud800"]))


@fuzz(60)
@given(left=st.sampled_from(["run0.json", "missing.json", ".", ""]), markdown=st.none() | PATHS)
def test_any_compare_command_line_gives_a_table_or_a_usage_error(left, markdown, runs, census, tmp_path):
    """compare's files and --markdown: exit 0, or 2 with an error naming the file or the option."""
    census["compare arguments"] += 1
    argv = [str(runs / left), str(runs / "run1.json")] + (
        [] if markdown is None else ["--markdown", str(tmp_path / markdown)]
    )
    status, err = _run(compare.main, argv)
    assert status in (0, 2), err
    if status == 2:
        assert "error:" in err


@fuzz(30)
@given(output=PATHS, title=st.one_of(st.text(max_size=30), EDGES))
def test_any_report_command_line_writes_a_report_or_gives_a_usage_error(output, title, runs, census, tmp_path):
    """report's -o and --title: a written file, or exit 2 with an error naming the option."""
    census["report arguments"] += 1
    status, err = _run(report.main, [str(runs / "run0.json"), "-o", str(tmp_path / output), "--title", title])
    assert status in (0, 2), err
    if status == 2:
        assert "error:" in err and any(f in err for f in ("-o", "--output", "--title")), err


@fuzz(100)
@given(argv=st.lists(st.one_of(VALUE, st.sampled_from(["-h", "--help", "--redis-url"])), min_size=1, max_size=3))
def test_any_services_command_line_is_help_or_a_usage_error(argv, census):
    """services takes no arguments: any given is --help (exit 0) or a usage error (exit 2), never a start."""
    census["services arguments"] += 1
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err), pytest.raises(SystemExit) as info:
        services.parser().parse_args(argv)
    assert info.value.code in (0, 2)
