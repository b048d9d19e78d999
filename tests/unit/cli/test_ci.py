"""``serverbench ci`` as a command (cli.ci), ``serverbench --version``, and the exit statuses every gating command's
--help lists (read from each parser's help, as a user sees it)."""

import re

import pytest

from serverbench import __version__, cli
from serverbench.change import workflow
from serverbench.cli import bisect, ci, gate


@pytest.mark.parametrize("command", [gate, ci, bisect])
def test_each_gating_command_lists_its_exit_statuses(command):
    """gate, ci and bisect: --help ends with 0, 1, 2 and 3, each with its meaning, as the command returns them."""
    text = command.parser().format_help()
    listed = re.findall(r"^  ([0-3])  (.+)$", text.split("exit status:\n", 1)[1], re.MULTILINE)
    assert [int(s) for s, _ in listed] == [0, 1, 2, 3]
    assert dict((int(s), m) for s, m in listed) == dict(command.EXIT_STATUSES)


def test_the_exit_statuses_say_what_each_means():
    """ci: 1 regression, 2 bad input or setup error, 3 could not decide; gate: 1 includes the error rate."""
    assert dict(ci.EXIT_STATUSES)[3].startswith("could not decide") and "bad input" in dict(ci.EXIT_STATUSES)[2]
    assert "not measured" in dict(ci.EXIT_STATUSES)[0]
    assert "error rate" in dict(gate.EXIT_STATUSES)[1] and "no single commit" in dict(bisect.EXIT_STATUSES)[3]


def test_version_prints_the_packages_version(capsys):
    """`serverbench --version` prints the installed package's version and exits 0."""
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out == f"serverbench {__version__}\n"
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", __version__)


def test_the_arguments_after_the_separator_pass_through(monkeypatch, tmp_path):
    """Everything after `--` reaches the workflow untouched; the rest are ci's own options."""
    seen = []
    monkeypatch.setattr(workflow, "run", lambda options, environ: seen.append(options) or 5)
    argv = ["--mode", "gate", "--endpoint", "a", "--endpoint", "b", "--out", str(tmp_path), "--base", "abc"]
    assert ci.main([*argv, "--", "--duration", "1", "--variant", "x"]) == 5
    options = seen[0]
    assert (options.mode, options.endpoints, options.out, options.base) == ("gate", ("a", "b"), tmp_path, "abc")
    assert options.extra == ("--duration", "1", "--variant", "x") and options.comment == "on-change"
