"""The whole default matrix across simulated hosts, cell by cell against the same matrix on loopback (docs/hosts.md).

    sblock timed .venv/bin/python benchmarks/hosts_matrix.py run       # ~20 min of timed load: nothing beside it
    sblock timed .venv/bin/python benchmarks/hosts_matrix.py run --loopback-too   # the loopback run first, in turn
    .venv/bin/python benchmarks/hosts_matrix.py render                 # docs/hosts.md's block, from the files

``run`` runs the default perf suite (``pytest -m perf``) under ``serverbench hosts simulate --load 2 --backends``: the
session on load1 (apart from the server host), the server started and sampled on the server host over SSH, Redis,
MongoDB and the upstream on a backends host, the two load hosts and the backends host sharing the other core; so the
server host runs the server alone, as in TechEmpower's lab (``--no-backends``: the backends on the server host).  Its records go to benchmarks/results/hosts-matrix.json.gz and its wall time, exit status and
pytest's summary line to hosts-matrix.json.  The loopback side is the whole default run committed for
docs/choose-a-server.md (benchmarks/results/choose-a-server.json.gz, with its own time in answers.json), unless
``--loopback-too`` runs it again first, one after the other (then kept as hosts-matrix-loopback.json.gz).

``render`` writes, per mode: cells passed / failed / skipped, pytest's time, and the flags that say the harness or the
machine got in the way (generator-saturated, neighbours, stall), and the cells whose server CPU reads 0 while they
served; then every cell whose throughput differs by more than 25% between the modes, with both modes' flags.  The
server has one core across hosts and the whole machine (two) on loopback, which by itself moves any cell whose server
used more than one core on loopback; the table says which did.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measured_block import rewrite  # noqa: E402 (a sibling script)

from serverbench.config.options import OPTIONS_BY_NAME  # noqa: E402
from serverbench.judge.checks import check_session  # noqa: E402
from serverbench.records.schema import Result  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks/results"
ACROSS = RESULTS / "hosts-matrix.json.gz"
SUMMARY = RESULTS / "hosts-matrix.json"
LOOPBACK = RESULTS / "choose-a-server.json.gz"
FRESH_LOOPBACK = RESULTS / "hosts-matrix-loopback.json.gz"
ANSWERS = RESULTS / "answers.json"
DOC = ROOT / "docs/hosts.md"
PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", "perf"]
SIMULATE = [sys.executable, "-m", "serverbench", "hosts", "simulate", "--load", "2"]
APART = 0.25  # a throughput this much apart between the modes is listed
# A server that used more than this many cores on loopback has less across hosts (one core): its throughput moves by
# that alone, so the listing counts such cells and names only the others.
ONE_CORE = 1.05
WATCHED = ("generator-saturated", "neighbours", "stall")
ERROR_LIMIT = OPTIONS_BY_NAME["perf_max_error_rate"].default  # a cell above it fails its test, with its record kept


def session(argv: list[str], out: Path) -> dict:
    """One whole perf session into ``out`` (gzipped): its wall time, exit status and pytest's summary line."""
    with tempfile.TemporaryDirectory() as tmp:
        records = Path(tmp) / "records.json"
        started = time.monotonic()
        done = subprocess.run([*argv, f"--perf-json={records}"], cwd=ROOT, capture_output=True, text=True)
        seconds = time.monotonic() - started
        if records.exists():
            out.write_bytes(gzip.compress(records.read_bytes(), mtime=0))
    said = done.stdout + done.stderr
    summary = re.findall(r"=+ (\d+ (?:passed|failed)[^=]*) =+", said)
    failed = re.findall(r"^FAILED (\S+)", said, re.MULTILINE)  # pytest's short summary: the tests, not only cells
    print(summary[-1] if summary else said[-2000:], *failed, sep="\n", flush=True)
    return {
        "seconds": round(seconds, 1),
        "exit": done.returncode,
        "summary": summary[-1] if summary else None,
        "failed": failed,
    }


def read(path: Path) -> dict:
    return json.loads(gzip.decompress(path.read_bytes()))


def judged(file: dict) -> dict:
    """``file`` with each record's flags as today's judge reads the kept record (judge.checks over the whole session),
    so a rule mended since the run counts as it stands; the measurements are the run's."""
    flags = check_session([Result.from_record(r) for r in file["results"]])
    results = [
        {**r, "flags": [{"name": f.name, "message": f.message} for f in got]} for r, got in zip(file["results"], flags)
    ]
    return {**file, "results": results}


def flag_names(record: dict) -> list[str]:
    return [f["name"] if isinstance(f, dict) else f for f in record.get("flags") or ()]


def counts(file: dict) -> dict:
    """Passed (a result), failed, skipped; the watched flags' cells; the cells that served with a server CPU of 0."""
    results = file["results"]
    zero = [r["key"] for r in results if r.get("requests") and (r.get("server") or {}).get("cpu_s") == 0]
    return {
        "results": len(results),
        "failures": len(file.get("failures") or ()),
        "skipped": len(file.get("skipped") or ()),
        **{name: sum(name in flag_names(r) for r in results) for name in WATCHED},
        "zero_cpu": zero,
        "over_errors": [r["key"] for r in results if (r.get("error_rate") or 0) > ERROR_LIMIT],
    }


def apart(loopback: dict, across: dict) -> list[dict]:
    """The cells measured both ways whose throughput differs by more than APART, with what each mode flagged and
    whether the server used more than the one core it has across hosts while on loopback."""
    there = {r["key"]: r for r in across["results"]}
    rows = []
    for here in loopback["results"]:
        other = there.get(here["key"])
        if other is None or not here.get("rps") or not other.get("rps"):
            continue
        ratio = other["rps"] / here["rps"]
        if abs(ratio - 1) <= APART:
            continue
        cpu, window = (here.get("server") or {}).get("cpu_s"), here.get("duration_s") or 0
        rows.append(
            {
                "key": here["key"],
                "loopback_rps": here["rps"],
                "across_rps": other["rps"],
                "ratio": round(ratio, 2),
                "loopback_cores": round(cpu / window, 2) if cpu and window else None,
                "loopback_flags": flag_names(here),
                "across_flags": flag_names(other),
            }
        )
    return sorted(rows, key=lambda r: r["ratio"])


def _minutes(seconds: float | None) -> str:
    return "?" if seconds is None else f"{int(seconds // 60)} min {round(seconds % 60):02d} s"


def table(loopback: dict, across: dict, times: dict[str, float | None]) -> str:
    rows = [
        "| | loopback | across simulated hosts |",
        "|---|---|---|",
    ]
    mine = {"loopback": counts(loopback), "across": counts(across)}
    rows.append(
        "| cells with a result / failed / skipped | "
        + " | ".join(f"{c['results']} / {c['failures']} / {c['skipped']}" for c in mine.values())
        + " |"
    )
    rows.append(
        f"| cells failed by their error rate (above {ERROR_LIMIT:.0%}) | "
        + " | ".join(", ".join(k.split("::")[-1] for k in c["over_errors"]) or "0" for c in mine.values())
        + " |"
    )
    rows.append("| the session's time | " + " | ".join(_minutes(times[m]) for m in mine) + " |")
    for name in WATCHED:
        rows.append(f"| `{name}` | " + " | ".join(str(c[name]) for c in mine.values()) + " |")
    rows.append(
        "| server CPU read as 0 on a cell that served | "
        + " | ".join(str(len(c["zero_cpu"])) for c in mine.values())
        + " |"
    )
    moved = apart(loopback, across)
    listed = [r for r in moved if r["loopback_cores"] is None or r["loopback_cores"] <= ONE_CORE]
    lines = [
        "\n".join(rows),
        "",
        f"{len(moved)} of {len(loopback['results'])} cells' throughput differs by more than {APART:.0%} between the two. "
        f"In {len(moved) - len(listed)} of them the server used more than {ONE_CORE:g} cores on loopback, where it had "
        "both (across hosts it has one), which moves its throughput by itself. The others, with the server's CPU "
        "seconds per second of window on loopback (`cores`):",
        "",
        "| cell | loopback rps | across rps | across / loopback | cores on loopback | loopback flags | across flags |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    for r in listed:
        cores = "?" if r["loopback_cores"] is None else f"{r['loopback_cores']:.2f}"
        lines.append(
            f"| {r['key'].split('::')[-1]} | {r['loopback_rps']:,.0f} | {r['across_rps']:,.0f} | {r['ratio']:.2f} | "
            f"{cores} | {', '.join(r['loopback_flags']) or '-'} | {', '.join(r['across_flags']) or '-'} |"
        )
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> None:
    summary = json.loads(SUMMARY.read_text()) if SUMMARY.exists() else {}
    if args.loopback_too:
        summary["loopback"] = session(PYTEST, FRESH_LOOPBACK)
    layout = [] if args.no_backends else ["--backends"]
    summary["across"] = {
        **session([*SIMULATE, *layout, "--", *PYTEST], ACROSS),
        "layout": " ".join(SIMULATE[5:] + layout),
    }
    summary["commit"] = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    SUMMARY.write_text(json.dumps(summary, indent=1) + "\n")


def render(doc: Path = DOC, write: bool = True) -> dict[Path, str]:
    if not ACROSS.exists() or not SUMMARY.exists():
        return rewrite(doc, "hosts-matrix", "Not measured yet: `benchmarks/hosts_matrix.py run`.\n", write)
    summary = json.loads(SUMMARY.read_text())
    fresh = "loopback" in summary and FRESH_LOOPBACK.exists()
    loopback = judged(read(FRESH_LOOPBACK if fresh else LOOPBACK))
    across = judged(read(ACROSS))
    loop_s = (
        summary["loopback"]["seconds"] if fresh else json.loads(ANSWERS.read_text())["default-run-after"]["pytest_s"]
    )
    times = {"loopback": loop_s, "across": summary["across"]["seconds"]}
    where = (
        "run one after the other"
        if fresh
        else f"the loopback side is the committed default run of {loopback['created'][:10]} (commit "
        f"{loopback['commit'][:7]}), the across side of {across['created'][:10]} (commit {across['commit'][:7]}): "
        "two sittings on one machine"
    )
    body = (
        f"The whole default matrix (`pytest -m perf`) on loopback and across "
        f"`serverbench hosts simulate {summary['across'].get('layout', '--load 2')}`, "
        f"the session on load1 (`python benchmarks/hosts_matrix.py run`); {where}; "
        f"{across['machine'].get('cpu', '?') if isinstance(across.get('machine'), dict) else across.get('machine')}.\n\n"
        + table(loopback, across, times)
    )
    return rewrite(doc, "hosts-matrix", body, write)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="the matrix across simulated hosts (sblock timed: nothing beside it)")
    r.add_argument("--loopback-too", action="store_true", help="run the loopback matrix first, one after the other")
    r.add_argument("--no-backends", action="store_true", help="no backends host: the backends on the server host")
    sub.add_parser("render", help="docs/hosts.md's block from the files")
    args = parser.parse_args(argv)
    run(args) if args.command == "run" else render()


if __name__ == "__main__":
    main(sys.argv[1:])
