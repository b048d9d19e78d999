"""Hosts beyond this machine (docs/hosts.md).

serverbench hosts check hosts.toml [--json]          can each host run the suite? (exit 1 when not)
serverbench hosts simulate --load 2 [--backends] [--apart|--on-server] -- ./run perf ...
                                                     the command on hosts made here in network namespaces
"""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import ConfigError, ServerbenchError
from ..hosts import check as checking
from ..hosts import simulate
from ..hosts.inventory import load
from ..hosts.ssh import Connections
from ..report.hosts import check_text


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="serverbench hosts", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    c = sub.add_parser("check", help="ask each host of an inventory whether it can run the suite")
    c.add_argument("inventory", metavar="FILE", help="the hosts inventory (TOML; docs/hosts.md)")
    c.add_argument("--json", action="store_true", help="print JSON instead of text")
    s = sub.add_parser("simulate", help="run a command on hosts simulated here (network namespaces; root)")
    s.add_argument("--load", type=int, default=1, metavar="N", help="load hosts to make (default 1)")
    s.add_argument("--backends", action="store_true", help="make a backends host too")
    where = s.add_mutually_exclusive_group()
    where.add_argument(
        "--apart",
        action="store_const",
        const=simulate.HERE,
        dest="where",
        help="run the command here, outside the namespaces, instead of on the first load host (either way the session "
        "runs apart from the server host and starts its servers there over SSH: docs/hosts.md)",
    )
    where.add_argument(
        "--on-server",
        action="store_const",
        const=simulate.SERVER,
        dest="where",
        help="run the command in the server host's namespace, on its cores (a script that starts a server where it "
        "runs); the session then shares the server's core",
    )
    s.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ...: run with SERVERBENCH_HOSTS set")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.action == "simulate":
            command = args.command[1:] if args.command[:1] == ["--"] else args.command
            return simulate.run(args.load, args.backends, command, where=args.where or simulate.LOAD)
        inventory = load(args.inventory)
        connections = Connections()
        try:
            results = checking.check(inventory, connections)
        finally:
            connections.close()
        if args.json:
            print(json.dumps([r.as_json() for r in results], indent=2))
        else:
            print(check_text(results))
        return 1 if any(r.problems for r in results) else 0
    except ConfigError as exc:
        print(f"serverbench hosts: error: {exc}", file=sys.stderr)
        return 2
    except ServerbenchError as exc:
        print(f"serverbench hosts: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
