"""One exception class per failure mode; each message says what was checked, what was found, and the fix.

No pytest here: the commands (gate, compare, history) raise and catch these too.  The pytest plugin
turns a ConfigError into pytest's usage error at its boundary.
"""

from __future__ import annotations


class ServerbenchError(Exception):
    """Base class: anything serverbench refuses or cannot do."""


class ConfigError(ServerbenchError):
    """A bad option, ini value, marker argument or variant declaration."""


class MissingBinaryError(ServerbenchError):
    """A program serverbench needs (wrk, redis-server) is not on PATH."""

    def __init__(self, binary: str, package: str | None = None, *, fix: str | None = None):
        super().__init__(
            f"{binary} was not found on PATH. Install it: `apt-get install {package}` "
            f"(Debian/Ubuntu, as root), or run the README's perf command, which installs it."
            if fix is None
            else f"{binary}: {fix}"
        )


class ServerStartError(ServerbenchError):
    """A server or backend process did not become ready."""

    def __init__(self, what: str, reason: str, command: str, log_tail: str):
        self.log_tail = log_tail
        super().__init__(
            f"{what} did not start: {reason}\n  command: {command}\n"
            f"  last lines of its output:\n{_indent(log_tail) or '    (no output)'}"
        )


class ServerDiedError(ServerbenchError):
    """A server exited while it was under load."""

    def __init__(self, what: str, returncode: int | None, log_tail: str):
        super().__init__(
            f"{what} exited (code {returncode}) during the trial; its result is not valid.\n"
            f"  last lines of its output:\n{_indent(log_tail) or '    (no output)'}"
        )


class ResetError(ServerbenchError):
    """A user's perf_app_reset function failed: the cell would not start from the same state."""


class SetupError(ServerbenchError):
    """A user's perf_app_setup command failed: the app could not be made ready to serve."""


class BackendUnreachable(ServerbenchError):
    """A service given by URL (--redis-url) does not answer."""


class VerificationError(ServerbenchError):
    """An endpoint answered, but not what the contract says."""

    def with_log(self, log_tail: str) -> VerificationError:
        """The same error followed by the server's last lines of output: why it answered so (an app's traceback)."""
        return VerificationError(f"{self}\n  last lines of its output:\n{_indent(log_tail) or '    (no output)'}")


class GeneratorError(ServerbenchError):
    """The load generator failed or printed no result."""


class BackendFault(ServerbenchError):
    """A backend fault (--perf-fault) struck the trial, or could not be made: the trial is not a measurement."""


class BaselineError(ServerbenchError):
    """A stored baseline file cannot be read or written."""


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.rstrip().splitlines())


class HostError(ServerbenchError):
    """A host of the inventory cannot be reached, differs from this one, or was lost during a trial."""
