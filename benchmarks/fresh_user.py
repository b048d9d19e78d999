"""docs/lab/robustness.md's fresh-user figures (the `fresh_checkout` test's times), rendered from one file, not typed in.

    # the test as docs/lab/robustness.md writes it, run and timed (as root: it makes a user), appended to
    # benchmarks/results/fresh-user.json; it installs and builds, so on a shared host under the load locks:
    flock /tmp/serverbench-turn.lock true && flock /tmp/serverbench-load.lock flock -s /tmp/serverbench-quiet.lock \\
        .venv/bin/python benchmarks/fresh_user.py record [--runs N] [--new]
    # docs/lab/robustness.md's block, from benchmarks/results/fresh-user.json:
    .venv/bin/python benchmarks/fresh_user.py render

``record`` runs the command as written, but for its ``sudo`` when it is root already (there sudo would only reset the
environment, and the test passes the host's CA variables on to the user: without them uv and npm fail here with
"invalid peer certificate: UnknownIssuer" and "self-signed certificate in certificate chain"). It times the whole
command and reads from its output (-s) what the test prints: `./run`'s exit and seconds, the seconds `./run` says each
install step took and when it was ready, and pytest's own count. Each run is kept with its date and commit; ``--new``
drops the runs kept before (a new series, at a new commit). A run that fails or skips is not kept (its output stays in
the log it names). ``render`` rewrites the block between ``<!-- BEGIN MEASURED: fresh-user ... -->`` and its END; a
unit test re-renders and compares (tests/unit/repo/test_fresh_user.py).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measured_block import rewrite  # noqa: E402 (a sibling script)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "fresh-user.json"
DOC = ROOT / "docs" / "lab" / "robustness.md"
COMMAND = "sudo .venv/bin/python -m pytest tests/unit/repo/test_workflows.py -m fresh_checkout -s -p no:cacheprovider"
RUN_LINE = re.compile(r"\./run tests --collect-only as \S+: exit (?P<exit>-?\d+) in (?P<s>\d+) s")
STEP_LINE = re.compile(r"serverbench: (?P<name>\S+): done in (?P<s>\d+) s")
READY_LINE = re.compile(r"serverbench: ready in (?P<s>\d+) s")
SUMMARY = re.compile(r"=+ (?P<counts>[^=]*?) in (?P<s>[\d.]+)s")


def parse(log: str) -> dict:
    """The figures of one run's output: ./run's exit and seconds, its install steps in the order it waited for them
    (name, seconds), when it was ready, and pytest's counts and seconds."""
    summary = next((m for m in map(SUMMARY.search, reversed(log.splitlines())) if m), None)
    if summary is None:
        raise SystemExit("no pytest summary line in the output: keep the command's whole output (it ends with one)")
    counts = {kind: int(n) for n, kind in re.findall(r"(\d+) (passed|failed|skipped|error|errors)", summary["counts"])}
    run, ready = RUN_LINE.search(log), READY_LINE.search(log)
    if counts.get("passed") != 1 or run is None or ready is None:
        said = "skipped (it needs root, useradd, sudo and git, and no user serverbench-ci; -rs says which)"
        if not counts.get("skipped"):
            said = f"did not pass ({summary['counts']}); its output above says why"
        raise SystemExit(f"the fresh-user test {said}: nothing recorded; fix that and record again")
    return {
        "exit": int(run["exit"]),
        "run_s": int(run["s"]),
        "ready_s": int(ready["s"]),
        "steps": [[m["name"], int(m["s"])] for m in STEP_LINE.finditer(log)],
        "test_s": round(float(summary["s"]), 1),
    }


def measure(log: Path) -> dict:
    """One run of COMMAND in the checkout, its output shown and kept in ``log``, and its wall time."""
    argv = shlex.split(COMMAND)
    if os.geteuid() == 0:  # as root, sudo only resets the environment: it would drop the CA variables the test passes
        argv = argv[1:]  # on to the user (a host that reaches the index through its own CA needs them; a runner not)
    started = time.monotonic()
    with log.open("w") as kept:
        process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in process.stdout:
            sys.stdout.write(line)
            kept.write(line)
        process.wait()
    wall = round(time.monotonic() - started, 1)
    try:
        return {"wall_s": wall, **parse(log.read_text(errors="replace"))}
    except SystemExit as refused:
        raise SystemExit(f"{refused} (the output: {log})") from None


def record(runs: int, commit: str, date: str, new: bool) -> list[dict]:
    """``runs`` runs of the test, each appended to the results file as it ends (a later failure keeps the earlier)."""
    data = json.loads(RESULTS.read_text()) if RESULTS.exists() and not new else {"command": COMMAND, "runs": []}
    done = []
    for number in range(runs):
        log = Path(tempfile.gettempdir()) / f"fresh-user-{dt.datetime.now():%Y%m%d-%H%M%S}.log"
        run = {"date": date, "commit": commit, **measure(log)}
        data["runs"].append(run)
        RESULTS.write_text(json.dumps(data, indent=1) + "\n")
        done.append(run)
        print(f"run {number + 1} of {runs}: {run['wall_s']} s (./run {run['run_s']} s, ready in {run['ready_s']} s)")
    return done


def spread(values: list[float]) -> str:
    """``a to b s`` over the runs (``a s`` when they agree)."""
    low, high = min(values), max(values)
    return f"{low:.0f} s" if round(low) == round(high) else f"{low:.0f} to {high:.0f} s"


def render_block(data: dict) -> str:
    runs = data["runs"]
    firsts = {}
    for run in runs:
        for name, seconds in run["steps"][:1]:
            firsts.setdefault(name, []).append(seconds)
    first = " or ".join(f"`{name}`, after {spread(seconds)}" for name, seconds in sorted(firsts.items()))
    dates = sorted({run["date"] for run in runs})
    commits = list(dict.fromkeys(run["commit"] for run in runs))
    commits = " and ".join([", ".join(commits[:-1]), commits[-1]] if len(commits) > 1 else commits)
    text = (
        f"It builds a new venv, so it is not in the default run. Over {len(runs)} run{'s' if len(runs) > 1 else ''} here "
        f"({' to '.join(dict.fromkeys([dates[0], dates[-1]]))}, at {commits}, the shared 2-core machine; "
        f"`benchmarks/fresh_user.py record`), {spread([r['wall_s'] for r in runs])} for the whole command "
        f"(pytest's count: {spread([r['test_s'] for r in runs])}). Of that, `./run tests --collect-only` took "
        f"{spread([r['run_s'] for r in runs])}: its installs, side by side in the user's fresh HOME (empty "
        f"caches), were ready after {spread([r['ready_s'] for r in runs])}, the first of them ({first}); "
        f"collecting the tests took the other {spread([r['run_s'] - r['ready_s'] for r in runs])}. Making the user "
        f"and its clone, and removing it, took the rest of pytest's count, "
        f"{spread([r['test_s'] - r['run_s'] for r in runs])}. `./run` prints the other steps' times only once it "
        "has waited for the steps before them (uv's sync itself waits for apt), so they are the time all were done "
        "and not given here."
    )
    text = re.sub(r"(\d) s\b", "\\1\N{NO-BREAK SPACE}s", text)  # a figure and its unit on one line
    return (
        textwrap.fill(text, width=100, break_long_words=False, break_on_hyphens=False).replace(
            "\N{NO-BREAK SPACE}", " "
        )
        + "\n"
    )


def render(write: bool = True) -> dict[Path, str]:
    """docs/lab/robustness.md with its fresh-user block rendered from the results file; written when ``write``."""
    if not RESULTS.exists():
        raise SystemExit(f"no {RESULTS.relative_to(ROOT)}: measure first (benchmarks/fresh_user.py record --new)")
    return rewrite(DOC, "fresh-user", render_block(json.loads(RESULTS.read_text())), write)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks/fresh_user.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record", help="run the fresh-user test, timed, into benchmarks/results/fresh-user.json")
    r.add_argument("--runs", type=int, default=1, help="how many runs, one after the other (default: 1)")
    r.add_argument("--new", action="store_true", help="drop the runs kept before (a new series)")
    r.add_argument("--commit", help="the commit it runs (default: git rev-parse --short HEAD)")
    sub.add_parser("render", help="rewrite docs/lab/robustness.md's block from benchmarks/results/fresh-user.json")
    args = parser.parse_args(argv)
    if args.command == "render":
        render()
        return 0
    if args.runs < 1:
        parser.error("--runs must be 1 or more")
    commit = (
        args.commit
        or subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    )
    record(args.runs, commit, dt.date.today().isoformat(), args.new)
    render()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
