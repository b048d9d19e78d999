"""The ``serverbench`` command: each subcommand's --help and dispatch, and the old ``python -m`` names (no servers)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from serverbench import cli

NAMES = list(cli.COMMANDS)


def test_the_tool_has_the_six_commands():
    """serverbench's subcommands are the six commands, each a module of serverbench.cli with a main."""
    assert NAMES == ["gate", "report", "compare", "history", "merge", "services"]


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


@pytest.mark.parametrize("argv", [[], ["nope"], ["--nope"]])
def test_no_or_an_unknown_command_is_a_usage_error(argv, capsys):
    """No command, or one that is not a subcommand, exits 2 with serverbench's usage."""
    with pytest.raises(SystemExit) as exit_:
        cli.main(argv)
    assert exit_.value.code == 2
    assert capsys.readouterr().err.startswith("usage: serverbench [-h] COMMAND")


def test_top_level_help_lists_every_command(capsys):
    """`serverbench --help` lists every subcommand with its line."""
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert all(f"  {name} " in out for name in NAMES)


@pytest.mark.parametrize("module", ["serverbench"] + [f"serverbench.{name}" for name in NAMES])
def test_python_dash_m_names_keep_working(module):
    """`python -m serverbench[.NAME] ... --help` still runs (the old module names are shims)."""
    argv = [sys.executable, "-m", module] + (["merge"] if module == "serverbench" else []) + ["--help"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)  # a loaded machine: imports take long
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: ")


def test_an_old_import_name_is_the_command_module():
    """`import serverbench.compare` (etc.) gives the moved module itself, so old imports and patches still reach it."""
    import serverbench.compare
    import serverbench.gate
    from serverbench.cli import compare, gate

    assert serverbench.compare is compare
    assert serverbench.gate.main is gate.main
