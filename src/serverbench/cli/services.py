"""Start the backing services by hand, seeded, for developing an app against them.

serverbench services      # prints the SERVERBENCH_* variables; Ctrl-C stops everything
"""

from __future__ import annotations

import argparse
import signal
import sys

from ..backends.base import BACKENDS, env, started


def parser() -> argparse.ArgumentParser:
    """No options: any argument is a usage error, and --help prints the docstring instead of starting anything."""
    return argparse.ArgumentParser(prog="serverbench services", description=__doc__.splitlines()[0])


STOP = {signal.SIGINT, signal.SIGTERM}


def main(argv: list[str] | None = None) -> int:
    parser().parse_args(argv)
    with started(BACKENDS) as services:
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
