"""Answers in minutes (issue 33): the times the README and docs state, measured and rendered from one file.

    # a fresh clone's ./run tests, each line stamped "HH:MM:SS +SECONDSs LINE" (benchmarks/stamp.sh), with --junitxml:
    .venv/bin/python benchmarks/answers.py tests tests.log junit.xml --as tests-after [--timeline tl.jsonl]
    # the same where oha was still to be built (hidden from ./run: a fresh machine's longest install):
    .venv/bin/python benchmarks/answers.py tests tests.log junit.xml --as tests-oha-build
    # a perf run's results file (--perf-json), and for the README's first example its terminal output too:
    .venv/bin/python benchmarks/answers.py perf run.json --as default-run-after
    .venv/bin/python benchmarks/answers.py example example.txt example.json --as readme-example
    # the blocks of README.md and docs/lab/measurements.md, from benchmarks/results/answers.json:
    .venv/bin/python benchmarks/answers.py render

Each measurement is merged into benchmarks/results/answers.json under its name; ``render`` rewrites the generated
blocks (``<!-- BEGIN MEASURED: answers-… -->``) so that no time in them is typed by hand.  A unit test re-renders
and compares (tests/unit/repo/test_answers.py).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from time_breakdown import figures  # noqa: E402 (a sibling script)
from timeline import summary, tests_of  # noqa: E402 (a sibling script)

from serverbench.report.progress import clock  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ANSWERS = ROOT / "benchmarks" / "results" / "answers.json"
STAMPED = re.compile(r"^(?P<clock>\d\d:\d\d:\d\d) \+\s*(?P<s>\d+)s (?P<line>.*)$")
FRESH = "tests-oha-build"  # the name of ./run tests measured with oha still to build (it is built beside the tests)
BARE = "tests-bare"  # ./run tests from a machine made bare by benchmarks/bare_tests.sh
BLOCK = re.compile(
    r"(<!-- BEGIN MEASURED: (?P<name>answers-[a-z-]+) [^\n]*-->\n)(?P<body>.*?)(<!-- END MEASURED: (?P=name) -->)",
    re.DOTALL,
)


def tests_figures(log: Path, junit: Path) -> dict:
    """A stamped ./run tests log: the seconds before pytest started (installs), pytest's own, the steps ./run timed,
    and from the JUnit file the twenty slowest tests and the outcome counts.  While oha builds, ./run runs two
    sessions (the tests marked oha after the build): pytest's time is from the first's start to the second's end, the
    summary both lines, and the second's JUnit file (NAME-oha.xml beside NAME.xml) is read too."""
    started = ended = finished = None
    steps = {}
    summaries = []
    for raw in log.read_text(errors="replace").splitlines():
        m = STAMPED.match(raw)
        if not m:
            continue
        seconds, line = int(m["s"]), m["line"]
        if started is None and "test session starts" in line:
            started = seconds
        if re.search(r"=+ .*(passed|failed).* in [\d.]+s", line):
            ended = seconds
            summaries.append(line.strip("= "))
        if line.startswith("END exit="):  # stamp.sh's last line: ./run's whole time (it may wait for oha after pytest)
            finished = seconds
        step = re.match(r"serverbench: ([\w-]+): done in (\d+) s", line)
        if step:
            steps[step[1]] = int(step[2])
    if started is None or ended is None:
        raise SystemExit(f"{log}: no pytest session start and end in it; stamp ./run tests with benchmarks/stamp.sh")
    junits = [junit, *[p for p in [junit.with_name(f"{junit.stem}-oha.xml")] if p.exists()]]
    cases = [
        (float(c.get("time") or 0), f"{c.get('classname')}::{c.get('name')}")
        for path in junits
        for c in ET.parse(path).iter("testcase")
    ]
    return {
        "setup_s": started,
        "pytest_s": ended - started,
        "total_s": finished if finished is not None else ended,
        "steps_s": steps,
        "summary": " + ".join(summaries),
        "slowest": [{"test": name, "s": round(s, 1)} for s, name in sorted(cases, reverse=True)[:20]],
    }


DURATION = re.compile(r"^(?:\S+ \+\s*\d+s )?(?P<s>[\d.]+)s (?:setup|call|teardown)\s+(?P<nodeid>\S+)")
WORKLOAD_OF = re.compile(r"\[(?:.*?)-(?P<workload>json|redis|mongo-small|upstream|u\d+-w\d+)-?(?:c\d+)?\]$")


def perf_figures(results: Path, log: Path | None) -> dict:
    """A perf run's figures (time_breakdown.figures); with its pytest output (``--durations=0``), pytest's own time
    from its summary line and the tests' time by workload from the durations, for a run whose file carries no phases
    (written before serverbench recorded them)."""
    found = figures(results)
    machine = next(
        (r.get("machine") for r in json.loads(results.read_text()).get("results", []) if r.get("machine")), None
    )
    if machine:  # the machine the run was measured on, as its records name it
        found["machine"] = f"{machine.get('cores')}-core {machine.get('cpu')}"
    if log is None:
        return found
    text = log.read_text(errors="replace")
    took = re.findall(r"(?:passed|failed)[^\n]* in ([\d.]+)s", text)
    if took:
        found["pytest_s"] = float(took[-1])
    by_workload: dict[str, float] = {}
    for line in text.splitlines():
        m = DURATION.match(line)
        w = WORKLOAD_OF.search(m["nodeid"]) if m else None
        if w:
            name = "site" if re.fullmatch(r"u\d+-w\d+", w["workload"]) else w["workload"]
            by_workload[name] = by_workload.get(name, 0.0) + float(m["s"])
    if by_workload and not found["by_workload_s"]:
        found["by_workload_s"] = {w: round(s, 1) for w, s in sorted(by_workload.items(), key=lambda kv: -kv[1])}
    return found


def example_figures(output: Path, results: Path) -> dict:
    """The README's first example: its summary table as printed, and the run's figures."""
    text = output.read_text(errors="replace")
    table = [line for line in text.splitlines() if (line and line[0] in "┏┃┡│└") or line.startswith("SAT:")]
    took = re.search(r"passed.* in ([\d.]+)s", text)
    # pytest's own time (collection and session included), not the phases' sum that figures() gives
    return {**figures(results), "table": table, "pytest_s": float(took[1]) if took else None}


def merge(name: str, found: dict) -> None:
    data = json.loads(ANSWERS.read_text()) if ANSWERS.exists() else {}
    data[name] = found
    ANSWERS.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


def _change(before: float | None, after: float | None) -> str:
    if not before or after is None:
        return "-"
    return f"{clock(before)} → {clock(after)} ({after / before:.0%})"


def blocks(data: dict) -> dict[str, str]:
    """The generated blocks' bodies, by name, from the answers file."""
    out = {}
    run, tests, example = data.get("default-run-after"), data.get("tests-after"), data.get("readme-example")
    fresh = data.get(FRESH)  # ./run tests where oha was still to be built (an earlier measurement)
    bare = data.get(BARE)  # ./run tests from a bare machine (benchmarks/bare_tests.sh): the only tests time stated
    if run and bare:
        oha = bare["steps_s"].get("oha")
        out["answers-readme"] = (
            f"Measured from bare by `benchmarks/bare_tests.sh`: `./run tests` took {clock(bare['total_s'])} "
            f"({bare['summary']}): ready in {clock(bare['setup_s'])}, then {clock(bare['pytest_s'])} of pytest"
            + (f", with oha built beside the tests in {clock(oha)}" if oha is not None else "")
            + f". The machine: {bare['conditions']}. "
            f"The default `./run perf` ran its {run['results']} cells in {clock(run['pytest_s'])} of pytest, "
            f"measured on a shared {run.get('machine', '2-core AMD EPYC')} with everything already installed. "
            "Where the time goes: "
            "[measurements](docs/lab/measurements.md#answers-in-minutes).\n"
        )
    if example:
        out["answers-example"] = (
            "```\n" + "\n".join(example["table"]) + "\n```\n\n"
            f"Measured on a shared 2-core machine ({clock(example['pytest_s'])} of pytest).\n"
        )
    rows = []
    for label, before, after, key in (
        ("default `./run perf`", "default-run-before", "default-run-after", "pytest_s"),
        ("`./run tests` from a fresh clone", "tests-before", "tests-after", "total_s"),
        ("  of which installs", "tests-before", "tests-after", "setup_s"),
        ("  of which pytest", "tests-before", "tests-after", "pytest_s"),
        ("`./run tests` with oha to build", "tests-before", FRESH, "total_s"),
        ("  of which pytest (beside the build)", "tests-before", FRESH, "pytest_s"),
        ("the README's first example", "readme-example-before", "readme-example", "pytest_s"),
    ):
        if after == FRESH and not fresh:
            continue
        b, a = data.get(before, {}).get(key), data.get(after, {}).get(key)
        rows.append(f"| {label} | {_change(b, a)} |")
    out["answers-times"] = "| what | before → after |\n|---|---|\n" + "\n".join(rows) + "\n"
    conditions = [
        (label, data[w]["conditions"])
        for w, label in (("tests-before", "before"), ("tests-after", "after"), (FRESH, "with oha to build"))
        if data.get(w, {}).get("conditions")
    ]
    if conditions:
        out["answers-times"] += "\n" + " ".join(f"`./run tests` {w}: {c}." for w, c in conditions) + "\n"
    if run:
        phases = sorted(run["by_phase_s"].items(), key=lambda kv: -kv[1])
        ll = run["littles_law"]
        slowest = "; ".join(f"{t['test']} {clock(t['s'])}" for t in run["slowest"])
        out["answers-phases"] = (
            "| phase | time | share |\n|---|---:|---:|\n"
            + "".join(f"| {p} | {clock(s)} | {100 * s / run['pytest_s']:.0f}% |\n" for p, s in phases)
            + "\n| workload | time |\n|---|---:|\n"
            + "".join(f"| {w} | {clock(s)} |\n" for w, s in sorted(run["by_workload_s"].items(), key=lambda kv: -kv[1]))
            + f"\nSlowest tests: {slowest}. "
            f"Windows measured again: {run['measured_again']}; flagged imprecise: {run['imprecise']}. "
            f"Little's law over {ll['cells']} closed-model cells: median {ll['median']:.2f}, {ll['outside']} outside "
            f"5% ({', '.join(f'{c}: {n}' for c, n in ll['outside_by_cause'].items()) or 'none'}).\n"
        )
    if tests:
        out["answers-tests"] = (
            "| slowest tests (`./run tests`) | s |\n|---|---:|\n"
            + "".join(f"| `{t['test']}` | {t['s']:.0f} |\n" for t in tests["slowest"])
            + (
                "\nInstall steps (run at once): "
                + ", ".join(f"{k} {clock(v)}" for k, v in sorted(tests["steps_s"].items(), key=lambda kv: -kv[1]))
                + ".\n"
                if tests.get("steps_s")
                else ""
            )
            + (_timeline_line(tests["timeline"]) if tests.get("timeline") else "")
        )
    return out


def _timeline_line(t: dict) -> str:
    """The xdist workers' busy and idle time, and the alone tests' share (benchmarks/timeline.py)."""
    workers = "; ".join(
        f"{name} busy {clock(w['busy_s'])}, idle {clock(w['idle_s'])}"
        for name, w in t["workers"].items()
        if name != "main"
    )
    folders = ", ".join(f"{k} {clock(v)}" for k, v in sorted(t["busy_by_folder_s"].items(), key=lambda kv: -kv[1]))
    return (
        f"\nFrom the first test to the last, {clock(t['wall_s'])}: {workers}. The tests marked `alone` (they judge "
        f"timings, so the other worker waits) held the machine {clock(t['alone_s'])}. Test time by folder: {folders}.\n"
    )


# The pages holding answers blocks: the README and the lab notebook.
PAGES = (ROOT / "README.md", ROOT / "docs" / "lab" / "measurements.md")


def render(paths: tuple[Path, ...] = PAGES, write: bool = True):
    """Rewrite the generated blocks of ``paths`` from the answers file; returns {path: new text}."""
    made = blocks(json.loads(ANSWERS.read_text()))
    texts = {}
    for path in paths:
        text = path.read_text()
        new = BLOCK.sub(lambda m: m.group(1) + made.get(m["name"], m["body"]) + m.group(4), text)
        texts[path] = new
        if write and new != text:
            path.write_text(new)
    return texts


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    t = sub.add_parser("tests")
    t.add_argument("log", type=Path)
    t.add_argument("junit", type=Path)
    t.add_argument("--as", dest="name", required=True)
    t.add_argument("--conditions", help="what the machine already had, in words (e.g. 'a fresh machine')")
    t.add_argument("--timeline", type=Path, help="the run's SERVERBENCH_TIMELINE file: the workers' busy and idle time")
    p = sub.add_parser("perf")
    p.add_argument("results", type=Path)
    p.add_argument("--log", type=Path, help="its pytest output with --durations=0 (for a file without phases)")
    p.add_argument("--as", dest="name", required=True)
    e = sub.add_parser("example")
    e.add_argument("output", type=Path)
    e.add_argument("results", type=Path)
    e.add_argument("--as", dest="name", required=True)
    sub.add_parser("render")
    args = parser.parse_args(argv)
    if args.what == "tests":
        merge(
            args.name,
            {
                **tests_figures(args.log, args.junit),
                **({"conditions": args.conditions} if args.conditions else {}),
                **({"timeline": summary(tests_of(args.timeline))} if args.timeline else {}),
            },
        )
    elif args.what == "perf":
        merge(args.name, perf_figures(args.results, args.log))
    elif args.what == "example":
        merge(args.name, example_figures(args.output, args.results))
    else:
        render()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
