"""Closed-model load generators on one server, interleaved: the CPU each spends per request, and the rps it sees
(issue 33: weigh a generator that installs in seconds against keeping oha, whose build is the longest install step).

    .venv/bin/python benchmarks/generators.py aiohttp --rounds 3 --json benchmarks/results/generators.json

The generators: oha (cargo install, minutes; per-request rows after the run), vegeta (go install, seconds; results
streamed as they come, stopped by SIGINT with its in-flight requests answered, `attack | encode --to csv`), h2load
(Debian's nghttp2-client, seconds; a per-request log streamed as it runs) and wrk (Debian; no per-request data).  Each
runs 64 connections for 5 s against one server started from the catalog; CPU is each generator process's own
(wait4).  Whatever is not installed is skipped and said.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from serverbench.catalog.variants import registry
from serverbench.measure.serving.servers import start_variant

ROOT = Path(__file__).resolve().parents[1]
SECONDS = 5
CONNECTIONS = 64


def _cpu(process: subprocess.Popen) -> float:
    _, _, usage = os.wait4(process.pid, 0)
    return usage.ru_utime + usage.ru_stime


def _binary(name: str) -> str | None:
    return shutil.which(name) or next(
        (str(p) for p in (Path.home() / ".cargo/bin" / name, Path.home() / "go/bin" / name) if p.exists()), None
    )


def oha(url: str, binary: str | None = None) -> tuple[int, float]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "rows.db"
        argv = [
            binary or _binary("oha"),
            "-z",
            f"{SECONDS}s",
            "-c",
            str(CONNECTIONS),
            "-w",
            "--db-url",
            str(db),
            "--no-tui",
        ]
        process = subprocess.Popen([*argv, "--output-format", "json", url], stdout=subprocess.DEVNULL)
        cpu = _cpu(process)
        return sqlite3.connect(db).execute("SELECT count(*) FROM oha").fetchone()[0], cpu


def vegeta(url: str) -> tuple[int, float]:
    binary = _binary("vegeta")
    attack = subprocess.Popen(
        [binary, "attack", "-rate=0", f"-workers={CONNECTIONS}", f"-max-workers={CONNECTIONS}", "-max-body=0"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    attack.stdin.write(f"GET {url}\n".encode())
    attack.stdin.close()
    encode = subprocess.Popen([binary, "encode", "--to", "csv"], stdin=attack.stdout, stdout=subprocess.PIPE)
    attack.stdout.close()
    lines = [0]
    reader = threading.Thread(target=lambda: lines.__setitem__(0, sum(1 for _ in encode.stdout)))
    reader.start()
    time.sleep(SECONDS)
    attack.send_signal(signal.SIGINT)
    cpu = _cpu(attack)
    reader.join()
    return lines[0], cpu + _cpu(encode)


def h2load(url: str) -> tuple[int, float]:
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "log"
        argv = ["h2load", "--h1", "-c", str(CONNECTIONS), "-m", "1", "-D", str(SECONDS), "--log-file", str(log), url]
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
        cpu = _cpu(process)
        return sum(1 for _ in log.open()), cpu


def wrk(url: str) -> tuple[int, float]:
    argv = ["wrk", "-t2", f"-c{CONNECTIONS}", f"-d{SECONDS}s", url]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    out = process.stdout.read()
    cpu = _cpu(process)
    return int(re.search(r"(\d+) requests in", out)[1]), cpu


GENERATORS = {"oha": oha, "vegeta": vegeta, "h2load": h2load, "wrk": wrk}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant")
    parser.add_argument("--path", default="/json")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--oha-build",
        action="append",
        default=[],
        metavar="NAME=BINARY",
        help="another oha binary, measured beside the installed one as oha-NAME (benchmarks/oha_build.sh KEEP=DIR)",
    )
    args = parser.parse_args(argv)
    present = {name: run for name, run in GENERATORS.items() if _binary(name)}
    for spec in args.oha_build:
        name, _, binary = spec.partition("=")
        if not binary or not Path(binary).is_file():
            parser.error(f"--oha-build {spec}: give NAME=BINARY, an oha binary that exists (oha_build.sh KEEP=DIR)")
        present[f"oha-{name}"] = lambda url, binary=binary: oha(url, binary)
    for name in set(GENERATORS) - set(present):
        print(f"{name}: not installed, skipped", file=sys.stderr)
    server = start_variant(registry()[args.variant], apps_dir=ROOT / "apps", timeout=60)
    url = server.url + args.path
    rows = []
    try:
        wrk(url)  # warm the server up
        for round_ in range(args.rounds):
            for name, run in present.items():
                requests, cpu = run(url)
                rows.append(
                    {
                        "round": round_ + 1,
                        "generator": name,
                        "rps": round(requests / SECONDS),
                        "cpu_s": cpu,
                        "us_per_request": round(1e6 * cpu / max(requests, 1), 1),
                    }
                )
                print(
                    f"{name:7} {rows[-1]['rps']:8,} rps  {cpu:5.2f} s CPU  {rows[-1]['us_per_request']:6.1f} µs/request"
                )
    finally:
        server.stop()
    if args.json is not None:
        args.json.write_text(
            json.dumps(
                {
                    "variant": args.variant,
                    "path": args.path,
                    "connections": CONNECTIONS,
                    "seconds": SECONDS,
                    "rows": rows,
                },
                indent=1,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
