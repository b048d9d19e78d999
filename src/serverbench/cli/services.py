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


def main(argv: list[str] | None = None) -> int:
    parser().parse_args(argv)
    with started(BACKENDS) as services:
        for variable, url in env(services).items():
            print(f"export {variable}='{url}'")
        for name, service in services.items():
            print(f"# {name}: {service.kind}, pid {service.pid}")
        sys.stdout.flush()
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    return 0


if __name__ == "__main__":
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    sys.exit(main())
