"""`serverbench services`'s command line: one option (--host), so nothing else a user types starts a backend by
mistake.

Starting the backends is the backends' own code (tests/integration/backends/test_backends.py); this file
starts nothing."""

import pytest

from serverbench.cli import services


def test_no_argument_or_a_host_is_what_parses():
    """An empty command line listens on loopback (host None); --host names the address to listen on."""
    assert vars(services.parser().parse_args([])) == {"host": None}
    assert services.parser().parse_args(["--host", "198.18.0.12"]).host == "198.18.0.12"


@pytest.mark.parametrize("argv", [["docs"], ["--redis-url", "redis://127.0.0.1:6379"], ["-v"]])
def test_any_argument_is_a_usage_error_naming_it(argv, capsys):
    """A positional or an option exits 2 with serverbench services's usage and the argument it did not expect."""
    with pytest.raises(SystemExit) as info:
        services.parser().parse_args(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("usage: serverbench services [-h] [--host ADDRESS]")
        and f"unrecognized arguments: {' '.join(argv)}" in err
    )


def test_help_prints_what_the_command_does_and_exits_0(capsys):
    """--help shows the module docstring's first line (what is started) and exits 0 before anything starts."""
    with pytest.raises(SystemExit) as info:
        services.parser().parse_args(["--help"])
    assert info.value.code == 0
    assert "Start the backing services by hand, seeded" in capsys.readouterr().out
