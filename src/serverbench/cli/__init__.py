"""The ``serverbench`` command: one tool whose subcommands are the modules of this package.

    serverbench ci                              # in a GitHub Actions job: a pull request's gate, a push's cost
    serverbench gate --variant aiohttp --workload json --base-ref origin/main
    serverbench report RESULTS.json -o report.html
    serverbench compare A.json B.json
    serverbench history benchmarks/history/
    serverbench bisect --good HEAD~5 --endpoint home --json bisect.json
    serverbench merge OUT.json SHARD1.json SHARD2.json
    serverbench hosts check hosts.toml
    serverbench services
    serverbench reference

``python -m serverbench`` is the same tool.  Each subcommand is ``serverbench.cli.<name>.main(argv)``
and keeps its own parser (``serverbench <name> --help``); a new command is a module here and one row
in COMMANDS.  The measuring itself is the pytest plugin (``pytest -m perf``), not a subcommand.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from .. import __version__

# name -> what it does (the line `serverbench --help` shows; the module is imported only when run, so
# `serverbench merge` does not pay for the gate's imports).
COMMANDS = {
    "gate": "the same-session A/B regression gate: two arms of one cell, interleaved and judged (docs/gate.md)",
    "ci": "a pull request's or a push's verdict in one step: the gate or the counted cost, one comment, the step summary and the artifact's files",
    "report": "one self-contained HTML report from results and decision files (docs/report.md)",
    "compare": "the same cells of N results files side by side, ratios to a reference (docs/interpreters.md)",
    "history": "change points per cell over many results files (docs/history.md)",
    "bisect": "which commit moved the counted cost: bisection on instructions per request, confirmed by the gate (docs/bisect.md)",
    "merge": "shards' results files joined into one session file (docs/sharding.md)",
    "hosts": "check an inventory of hosts, or run a command on hosts simulated here (docs/hosts.md)",
    "services": "start the seeded backends by hand and print their SERVERBENCH_* variables",
    "reference": "rewrite the generated tables in docs/ from the data (variants, apps, workloads, options)",
}


def parser() -> argparse.ArgumentParser:
    listing = "\n".join(f"  {name:9s} {text}" for name, text in COMMANDS.items())
    p = argparse.ArgumentParser(
        prog="serverbench",
        description=__doc__.splitlines()[0],
        epilog=f"commands:\n{listing}\n\n`serverbench COMMAND --help` shows a command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"serverbench {__version__}")
    p.add_argument("command", choices=COMMANDS, metavar="COMMAND", help="one of: " + ", ".join(COMMANDS))
    return p


def exit_statuses(rows: Sequence[tuple[int, str]]) -> str:
    """The closing lines of a gating command's --help: each exit status and what it means (CI reads them)."""
    return "exit status:\n" + "\n".join(f"  {status}  {meaning}" for status, meaning in rows)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] not in COMMANDS:
        parser().parse_args(argv[:1])  # --help, or a usage error naming the commands (exit 2)
    command = importlib.import_module(f"{__name__}.{argv[0]}")
    return command.main(argv[1:])
