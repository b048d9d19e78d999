"""Start the backing services by hand, seeded, for developing an app against them.

serverbench services      # prints the SERVERBENCH_* variables; Ctrl-C stops everything
serverbench services --host 198.18.0.12   # listening on that address (a backends host: docs/hosts.md)
"""

from __future__ import annotations

import argparse
import signal
import sys

from ..backends.base import BACKENDS, env, started


def parser() -> argparse.ArgumentParser:
    """One option, the address to listen on; any other argument is a usage error, and --help prints the docstring
    instead of starting anything."""
    p = argparse.ArgumentParser(prog="serverbench services", description=__doc__.splitlines()[0])
    p.add_argument(
        "--host",
        default=None,
        metavar="ADDRESS",
        help="the address the services listen on (default 127.0.0.1; a backends host's own address: docs/hosts.md)",
    )
    return p


STOP = {signal.SIGINT, signal.SIGTERM}


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    with started(BACKENDS, host=args.host) as services:
        # Blocked once the services run (they would inherit a blocked mask), so that sigwait takes SIGINT and SIGTERM
        # however the command was started: unblocked, SIGTERM ended it without stopping them, and a shell's background
        # job starts with SIGINT ignored, which sigwait then never saw.
        before = signal.pthread_sigmask(signal.SIG_BLOCK, STOP)
        try:
            for variable, url in env(services).items():
                print(f"export {variable}='{url}'")
            for name, service in services.items():
                print(f"# {name}: {service.kind}, pid {service.pid}")
            sys.stdout.flush()
            signal.sigwait(STOP)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
