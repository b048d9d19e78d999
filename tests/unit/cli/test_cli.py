"""The ``serverbench`` command: each subcommand's --help and dispatch, and the old ``python -m serverbench.X``
modules gone (no servers; ``python -m serverbench`` itself: tests/unit/test___main__.py)."""

from __future__ import annotations

import importlib.util
import pkgutil
import re
import subprocess
from pathlib import Path

import pytest

from serverbench import cli

NAMES = list(cli.COMMANDS)


def test_the_tool_has_the_ten_commands():
    """serverbench's subcommands are the ten commands, each a module of serverbench.cli with a main."""
    assert NAMES == ["gate", "ci", "report", "compare", "history", "bisect", "merge", "hosts", "services", "reference"]


@pytest.mark.parametrize("name", NAMES)
def test_each_subcommand_help_is_its_own_parser(name, capsys):
    """`serverbench NAME --help` reaches NAME's own parser (its usage line names it) and exits 0."""
    with pytest.raises(SystemExit) as exit_:
        cli.main([name, "--help"])
    assert exit_.value.code == 0
    usage = capsys.readouterr().out.splitlines()[0]
    assert usage.startswith("usage: ") and name in usage


@pytest.mark.parametrize("name", NAMES)
def test_dispatch_passes_the_rest_of_the_command_line(name, monkeypatch):
    """`serverbench NAME ARGS...` calls serverbench.cli.NAME.main(ARGS) and returns its status."""
    import importlib

    seen = []
    module = importlib.import_module(f"serverbench.cli.{name}")
    monkeypatch.setattr(module, "main", lambda argv: seen.append(argv) or 7)
    assert cli.main([name, "a.json", "--flag"]) == 7
    assert seen == [["a.json", "--flag"]]


def test_every_module_of_the_package_is_a_listed_command():
    """Each module of serverbench.cli is a row of COMMANDS (a module without one is a command `--help` never shows)."""
    assert {module.name for module in pkgutil.iter_modules(cli.__path__)} == set(NAMES)


@pytest.mark.parametrize("argv", [[], ["nope"], ["--nope"]])
def test_no_or_an_unknown_command_is_a_usage_error(argv, capsys):
    """No command, or one that is not a subcommand, exits 2 with serverbench's usage."""
    with pytest.raises(SystemExit) as exit_:
        cli.main(argv)
    assert exit_.value.code == 2
    assert capsys.readouterr().err.startswith("usage: serverbench [-h] [--version] COMMAND")


def test_top_level_help_lists_every_command(capsys):
    """`serverbench --help` lists every subcommand with its line."""
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert all(f"  {name} " in out for name in NAMES)


@pytest.mark.parametrize("old", ["gate.__main__", "compare", "history", "merge", "services", "report.__main__"])
def test_the_old_module_names_are_gone(old):
    """No `python -m serverbench.OLD` module is left beside the command (a shim is a second door to patch); gate and
    report are packages now, with no __main__ to run."""
    assert importlib.util.find_spec(f"serverbench.{old}") is None


def _exists(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # its parent package is gone too
        return False


def test_every_python_dash_m_the_repository_writes_runs_a_module_that_exists():
    """Each `python -m serverbench...` in a tracked file (scripts, docs, workflows, examples) names a module that
    exists: the examples' ci/gate.sh still ran the gate's old module after it was removed."""
    root = Path(__file__).resolve().parents[3]
    files = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout.split()
    written = {}
    for name in files:
        if name == "tests/unit/cli/test_cli.py" or name.startswith("CHANGELOG"):  # the old names, as history
            continue
        try:
            text = (root / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):  # binary files; one deleted in the work tree
            continue
        for module in re.findall(r"python3? -m (serverbench(?:\.\w+)*)", text):
            written.setdefault(module, name)
    assert "serverbench" in written
    gone = {module: name for module, name in written.items() if not _exists(module)}
    assert not gone, f"these name a module that does not exist (write `serverbench COMMAND`): {gone}"


def test_bisect_is_a_subcommand_only():
    """`serverbench bisect` has no `python -m serverbench.bisect` door beside it (the package has no __main__)."""
    assert importlib.util.find_spec("serverbench.bisect.__main__") is None
    assert importlib.util.find_spec("serverbench.cli.bisect") is not None
