"""The exceptions' messages: what was checked, what was found, and the fix."""

import pytest

from serverbench import errors


def test_every_failure_mode_is_a_serverbench_error():
    """Each exception class of the module derives from ServerbenchError, so a command can catch them all in one place."""
    classes = [c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, Exception)]
    assert all(issubclass(c, errors.ServerbenchError) for c in classes)
    assert errors.ServerbenchError.__bases__ == (Exception,)


def test_a_missing_binary_names_the_package_to_install():
    """Without a fix, the message names the binary and the apt package to install it from."""
    message = str(errors.MissingBinaryError("nginx", "nginx-light"))
    assert message == (
        "nginx was not found on PATH. Install it: `apt-get install nginx-light` (Debian/Ubuntu, as root), "
        "or run the README's perf command, which installs it."
    )


def test_a_missing_binary_with_its_own_fix_says_only_that():
    """A fix given replaces the apt line: the binary, then the fix."""
    message = str(errors.MissingBinaryError("oha", fix="cargo install oha --locked"))
    assert message == "oha: cargo install oha --locked"


def test_a_server_that_did_not_start_shows_the_command_and_its_output_indented():
    """What, why, the command, and each line of its output indented by four spaces; the tail is kept on the error."""
    err = errors.ServerStartError("gunicorn", "no answer on port 8000 in 30 s", "gunicorn app:app", "line 1\nline 2\n")
    assert str(err) == (
        "gunicorn did not start: no answer on port 8000 in 30 s\n"
        "  command: gunicorn app:app\n"
        "  last lines of its output:\n"
        "    line 1\n"
        "    line 2"
    )
    assert err.log_tail == "line 1\nline 2\n"


@pytest.mark.parametrize("tail", ["", "\n  \n"])
def test_a_server_with_no_output_says_so(tail):
    """An empty (or blank) log tail is written as '(no output)', not as nothing."""
    assert str(errors.ServerStartError("redis", "exited", "redis-server", tail)).endswith(
        "  last lines of its output:\n    (no output)"
    )
    assert str(errors.ServerDiedError("redis", None, tail)).endswith("  last lines of its output:\n    (no output)")


def test_a_server_that_died_under_load_names_its_exit_code_and_output():
    """The server, its exit code, that the result is not valid, and its last lines."""
    assert str(errors.ServerDiedError("uvicorn", -9, "Killed")) == (
        "uvicorn exited (code -9) during the trial; its result is not valid.\n  last lines of its output:\n    Killed"
    )


def test_a_wrong_answer_with_its_log_keeps_its_first_line_then_the_servers_output():
    """with_log: the contract error as it was (its first line the one a comment leads with), then the log indented."""
    err = errors.VerificationError("app does not honour the endpoint contract: POST /todos: status 500 != expected 201")
    logged = err.with_log("Traceback (most recent call last):\nRuntimeError: broken\n")
    assert isinstance(logged, errors.VerificationError) and str(logged) == (
        "app does not honour the endpoint contract: POST /todos: status 500 != expected 201\n"
        "  last lines of its output:\n"
        "    Traceback (most recent call last):\n"
        "    RuntimeError: broken"
    )
    assert str(err.with_log("")).endswith("  last lines of its output:\n    (no output)")
