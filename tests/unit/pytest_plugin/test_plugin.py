"""The plugin's wiring (pytest_plugin.plugin), end to end in pytester with no server: options, --perf-list, usage
errors."""

import pytest

from serverbench.report import reference


def test_pytest_help_lists_every_option(pytester):
    """`pytest --help` renders every option's help (a bare % in a help text used to crash argparse)."""
    from serverbench.config.options import OPTIONS

    result = pytester.runpytest("--help")
    assert result.ret == 0, result.stderr.str()
    text = result.stdout.str()
    assert all(option.flag in text for option in OPTIONS)


def test_perf_list_markdown_prints_the_variants_block(pytester):
    """`pytest --perf-list --markdown` prints the variants block, starts nothing, and needs --perf-list."""
    result = pytester.runpytest_subprocess("--perf-list", "--markdown", "-p", "no:cacheprovider")
    assert result.ret == 0
    assert "\n".join(result.outlines).strip() == reference.catalog().strip()
    alone = pytester.runpytest_subprocess("--markdown", "-p", "no:cacheprovider")
    assert alone.ret == pytest.ExitCode.USAGE_ERROR
    alone.stderr.fnmatch_lines(["*--markdown only changes --perf-list*"])


SESSION_TEST = '''
def test_session(request):
    """Print what the session resolved."""
    from serverbench.pytest_plugin.fixtures import perf_session_of

    config = perf_session_of(request.config).config
    print("RESOLVED", config.duration, config.save_baseline, config.connections)
'''


def test_the_command_line_beats_the_ini_and_a_flag_not_given_leaves_the_ini_its_say(pytester):
    """perf_duration, perf_save_baseline and perf_connections set in the ini reach the session; --perf-duration on the
    command line beats the ini's, and --perf-save-baseline not given does not undo the ini's true."""
    pytester.makeini("[pytest]\nperf_duration = 7\nperf_save_baseline = true\nperf_connections = 8\n")
    pytester.makepyfile(test_session=SESSION_TEST)
    pytester.runpytest("-s", "-p", "no:cacheprovider").stdout.fnmatch_lines(["*RESOLVED 7 True (8,)"])
    cli = pytester.runpytest("-s", "-p", "no:cacheprovider", "--perf-duration", "3")
    cli.stdout.fnmatch_lines(["*RESOLVED 3 True (8,)"])


def test_a_bad_value_or_an_unknown_name_is_a_usage_error_naming_it(pytester):
    """A value out of range and an unknown variant each stop pytest with a usage error (exit 4) that names the
    option or the name and what is known, before any test runs."""
    pytester.makepyfile(test_session=SESSION_TEST)
    bad = pytester.runpytest("-p", "no:cacheprovider", "--perf-duration", "0")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--perf-duration='0'*"])
    unknown = pytester.runpytest("-p", "no:cacheprovider", "--perf-variants", "no-such-server")
    assert unknown.ret == pytest.ExitCode.USAGE_ERROR
    unknown.stderr.fnmatch_lines(["*unknown variant 'no-such-server'; known variants: *"])


def test_the_perf_marker_is_registered_with_its_thresholds(pytester):
    """`pytest --markers` lists perf with its per-test thresholds, so --strict-markers accepts it."""
    pytester.runpytest("--markers").stdout.fnmatch_lines(
        ["@pytest.mark.perf(tolerance=None, max_error_rate=None): a load test; optional per-test thresholds"]
    )


CELLS_TEST = '''
def test_cell(perf_variant, perf_app, perf_workload, perf_shape):
    """One test per cell, workload and shape."""
'''


def test_a_perf_test_is_parametrized_per_cell_then_workload_then_shape(pytester):
    """Two variants, two workloads and two connection counts give eight tests named variant-app-workload-shape, the
    cells outermost, variants and workloads in the catalog's order; a --perf-target run names no app."""
    pytester.makepyfile(test_cells=CELLS_TEST)
    selection = ["--perf-workloads", "json,plaintext", "--perf-connections", "8,16"]
    result = pytester.runpytest(
        "--collect-only", "-q", "-p", "no:cacheprovider", "--perf-variants", "waitress-t4,bjoern", *selection
    )
    ids = [line.split("[", 1)[1].rstrip("]") for line in result.outlines if line.startswith("test_cells.py::")]
    assert ids == [
        f"{cell}-{workload}-c{c}"
        for cell in ("bjoern-flask", "waitress-t4-flask")
        for workload in ("plaintext", "json")
        for c in (8, 16)
    ]
    target = pytester.runpytest(
        "--collect-only", "-q", "-p", "no:cacheprovider", "--perf-target", "http://127.0.0.1:9", *selection
    )
    assert [line for line in target.outlines if line.startswith("test_cells.py::")][
        0
    ] == "test_cells.py::test_cell[target-plaintext-c8]"
