"""The whole pull-request job, timed from a cold cache and from a warm one: the action (action.yml) run by nektos/act
on this host, as a runner runs it, on examples/django-notes' three endpoints under one variant.

    sblock timed .venv/bin/python benchmarks/pr_job.py run      # cold, then warm; appends to the results file
    .venv/bin/python benchmarks/pr_job.py render                # docs/lab/gate.md's block, from the results file

The job is tests/integration/gate/test_example_ci.py's: the example copied into a fresh git repository, a pull
request that adds a comment to a view (the decision that runs longest: a pass has to settle), the example's own
workflow with ``endpoints: page,list,create`` and ``variants: gunicorn-sync-w2`` and nothing else given (the gate's
own defaults), actions/cache and actions/upload-artifact replaced by stand-ins, gh by a recording one.  The time is
act's wall time, from the job's first step to its last (the checkout included; a hosted runner adds the machine's
start and actions/checkout's fetch).

- **cold**: a fresh HOME (so no pip cache and no oha in ``~/.cache/serverbench``) and no oha on PATH.  The action
  then downloads oha's release binary from GitHub; this machine cannot reach GitHub, so here the gate runs with
  ``--rate off`` (no fixed-rate windows), as the summary says.  The system programs (valgrind, wrk, redis-server)
  are installed on this machine, as on a runner image that has them; installing them with apt adds its time.
- **warm**: the same HOME after the cold run (pip's cache filled) with oha where actions/cache restores it
  (``~/.cache/serverbench/oha-VERSION``), as the second push of a pull request finds them.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from measured_block import rewrite  # noqa: E402 (a sibling script)

from serverbench.drivers.oha import VERSION as OHA_VERSION  # noqa: E402 (the version the action caches)
from tests.integration.gate import test_example_ci as job  # noqa: E402 (the job the tests run, timed here)

RESULTS = ROOT / "benchmarks/results/pr-job.jsonl"
DOC = ROOT / "docs/lab/gate.md"
CI_PAGE = ROOT / "docs/ci.md"
EXAMPLE, ENDPOINTS, VARIANT = "django-notes", "page,list,create", "gunicorn-sync-w2"
STEP = re.compile(r"(?:Success|Failure) - Main (?P<step>[^\[\n]+?)\s*\[(?P<took>[0-9hms.]+)\]")


def seconds(took: str) -> float:
    """act's duration (``1m2.5s``, ``850ms``) in seconds."""
    if took.endswith("ms"):
        return float(took[:-2]) / 1000
    total, number = 0.0, ""
    for char in took:
        if char.isdigit() or char == ".":
            number += char
        else:
            total += float(number) * {"h": 3600, "m": 60, "s": 1}[char]
            number = ""
    return total


def without_oha(path: str) -> str:
    return os.pathsep.join(p for p in path.split(os.pathsep) if not (Path(p) / "oha").exists())


def machine() -> str:
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if "model name" in line
        ),
        "?",
    )
    return f"{os.cpu_count()}-core {model}"


def one(rig: dict, top: Path, home: Path, label: str) -> dict:
    """One pull request's job (``label``: cold or warm) in a fresh repository, with ``home`` as HOME."""
    work = top / label
    work.mkdir()
    repo = job.project(work, EXAMPLE)
    path = repo / "notes" / "views.py"
    job._git(repo, "checkout", "-qb", "change")
    path.write_text("# a comment, nothing else\n" + path.read_text())
    job._git(repo, "commit", "-qam", "a comment")
    env = {**os.environ, "HOME": str(home), "PYENV_ROOT": os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))}
    env["PATH"] = without_oha(env["PATH"])
    run = job.act(rig, repo, work, label, job.workflow(repo, work, endpoints=ENDPOINTS, variants=VARIANT), env=env)
    verdict = json.loads(run["files"]["result.json"].read_text()) if "result.json" in run["files"] else {}
    steps = {m["step"].strip(): round(seconds(m["took"]), 1) for m in STEP.finditer(run["log"])}
    return {
        "label": label,
        "seconds": rig["timings"][label],
        "exit": run["exit"],
        "verdict": verdict.get("verdict"),
        "status": verdict.get("status"),
        "rate_off": "--rate off" in run["log"] or "`--rate off`" in run["log"],
        "commented": run["body"] is not None,
        "steps": steps,
        "log_tail": run["log"][-1500:] if run["exit"] not in (0, 1) else "",
    }


def run(out: Path) -> None:
    if job.act_binary() is None:
        raise SystemExit(f"act is not installed: {job.INSTALL_ACT} (or ./run tests -m example_ci, which builds it)")
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    with tempfile.TemporaryDirectory(prefix="serverbench-pr-job.") as tmp:
        top = Path(tmp)
        rig = job.make_rig(top / "action")
        rig["timeout"] = 3600
        home = top / "home"
        home.mkdir()
        for label in ("cold", "warm"):
            if label == "warm":
                oha = shutil.which("oha") or str(Path.home() / ".cargo/bin/oha")
                cached = home / ".cache" / "serverbench" / f"oha-{OHA_VERSION}"
                cached.mkdir(parents=True, exist_ok=True)
                shutil.copy2(oha, cached / "oha")
            line = {
                **one(rig, top, home, label),
                "example": EXAMPLE,
                "endpoints": ENDPOINTS,
                "variant": VARIANT,
                "machine": machine(),
                "commit": commit.stdout.strip(),
                "at": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            }
            print(
                f"{label}: {line['seconds']} s, exit {line['exit']}, {line['verdict']}, rate off {line['rate_off']}",
                flush=True,
            )
            with out.open("a") as f:
                f.write(json.dumps(line) + "\n")


def _minutes(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 60} min {whole % 60:02d} s" if whole >= 60 else f"{whole} s"


def table(lines: list[dict]) -> str:
    rows = [
        "| cache | the job | its gate step | verdict | fixed-rate windows | machine, commit, date |",
        "|---|---:|---:|---|---|---|",
    ]
    for line in lines:
        gate = next((s for name, s in line["steps"].items() if "serverbench ci" in name), None)
        minutes = _minutes(line["seconds"])
        rows.append(
            f"| {line['label']} | {minutes} | {'?' if gate is None else f'{gate:.0f} s'} | {line['verdict']} "
            f"(exit {line['exit']}) | {'off (no oha)' if line['rate_off'] else 'on'} | {line['machine']}, "
            f"{line['commit']}, {line['at'][:10]} |"
        )
    return "\n".join(rows)


def render(results: Path = RESULTS, doc: Path = DOC, write: bool = True) -> dict[Path, str]:
    lines = [json.loads(text) for text in results.read_text().splitlines() if text.strip()]
    latest = {line["label"]: line for line in lines}  # the last run of each
    body = (
        f"The whole pull-request job ({EXAMPLE}'s three endpoints `{ENDPOINTS}` under {VARIANT}, a comment-only "
        f"change, the gate's defaults), act's wall time from the job's first step to its last "
        f"(`python benchmarks/pr_job.py run`):\n\n{table([latest[k] for k in ('cold', 'warm') if k in latest])}\n"
    )
    pages = rewrite(doc, "pr-job", body, write=write)
    return pages | rewrite(CI_PAGE, "pr-job-ci", in_words([latest[k] for k in ("cold", "warm") if k in latest]), write)


def in_words(lines: list[dict]) -> str:
    """docs/ci.md's sentence: the job's time from each cache state, on the machine that measured it."""
    if not lines:
        return "Not measured yet: `python benchmarks/pr_job.py run`, then `render`.\n"
    said = "; ".join(
        f"{_minutes(line['seconds'])} from a {line['label']} cache"
        + (" (without the fixed-rate windows: no oha could be fetched)" if line["rate_off"] else "")
        for line in lines
    )
    return (
        f"For three endpoints under one server, the whole job took {said}, on a {lines[0]['machine']}"
        " ([how](lab/gate.md#how-long-a-pull-request-waits)). What the gate decided on a runner with neighbours"
        " stealing its CPU: [does it cry wolf?](lab/gate.md#does-it-cry-wolf-on-a-shared-runner)\n"
    )


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="the job from a cold cache, then warm (sblock timed: nothing else beside it)")
    r.add_argument("--out", type=Path, default=RESULTS)
    sub.add_parser("render", help=f"{DOC.relative_to(ROOT)}'s block from {RESULTS.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    if args.command == "run":
        run(args.out)
    else:
        render()


if __name__ == "__main__":
    main(sys.argv[1:])
