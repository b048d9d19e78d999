"""The mutation score per module from mutmut's results (mutants/**/*.meta), and the survivors not yet
accounted for in docs/lab/mutation-survivors.md (docs/lab/mutation.md).

    python benchmarks/mutation_score.py [--min 0.9] [--markdown]
    python benchmarks/mutation_score.py --as NAME --only records.schema ...   # keep these modules' figures
    python benchmarks/mutation_score.py --render                              # docs/lab/mutation.md's block again

Killed counts kills, timeouts and segfaults (the mutant broke the code); a survivor listed in
docs/lab/mutation-survivors.md as equivalent counts as accounted for, not as killed.  A mutant no unit test runs
(mutmut's "no tests") counts as checked and not killed, in its own column: nothing tried to kill it.  Exit status 1 when a
module's score (killed + accounted for) / checked is under --min, or a survivor is not accounted for.

``--as NAME`` keeps the figures of the modules ``--only`` names (all: every module mutants/ holds) in
benchmarks/results/mutation-scores.json as run NAME, and rewrites the block of docs/lab/mutation.md between
``<!-- BEGIN MEASURED: mutation-scores ... -->`` and its END from that file (``--render`` only rewrites it); a unit
test re-renders and compares (tests/unit/repo/test_mutation_score.py).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measured_block import rewrite  # noqa: E402 (a sibling script)

ROOT = Path(__file__).resolve().parents[1]
SURVIVORS = ROOT / "docs" / "lab" / "mutation-survivors.md"
SCORES = ROOT / "benchmarks" / "results" / "mutation-scores.json"
DOC = ROOT / "docs" / "lab" / "mutation.md"
COLUMNS = ("killed", "equivalent", "open", "untested", "checked", "mutants")
KILLED = {1, 3, 36, 24, -24, 152, 255, -11, -9, 37}  # mutmut's kill, timeout and segfault exit codes
SURVIVED = {0}
UNTESTED = {33}  # mutmut's "no tests": no unit test runs the mutated function (a survivor nothing tried to kill)


def accounted() -> set[str]:
    """Mutant names listed in docs/lab/mutation-survivors.md (a `name` in backticks at the start of a list item)."""
    if not SURVIVORS.exists():
        return set()
    return set(re.findall(r"^- `([\w.]+__mutmut_\d+)`", SURVIVORS.read_text(), re.M))


def results(folder: Path) -> dict[str, dict[str, int | None]]:
    """Module name -> mutant name -> exit code (None: not checked)."""
    out: dict[str, dict[str, int | None]] = defaultdict(dict)
    for meta in sorted(folder.rglob("*.py.meta")):
        module = ".".join(meta.relative_to(folder).with_suffix("").with_suffix("").parts[1:])
        for name, code in json.loads(meta.read_text())["exit_code_by_key"].items():
            out[module][name] = code
    return out


def render_block(data: dict) -> str:
    """The kept runs, one row per module and run, in the order the runs were kept."""
    runs = data.get("runs", {})
    if not runs:
        return "No run kept yet.\n"
    lines = [
        "| run | date | module | killed | listed equivalent | open | of them untested | checked | mutants | score |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, run in runs.items():
        for module, m in sorted(run["modules"].items()):
            score = (m["killed"] + m["equivalent"]) / m["checked"]
            lines.append(
                f"| {name} | {run['date']} | {module} | " + " | ".join(str(m[c]) for c in COLUMNS) + f" | {score:.1%} |"
            )
    return "\n".join(lines) + "\n"


def render(write: bool = True) -> dict[Path, str]:
    """docs/lab/mutation.md with its mutation-scores block rendered from the scores file; written when ``write``."""
    data = json.loads(SCORES.read_text()) if SCORES.exists() else {}
    return rewrite(DOC, "mutation-scores", render_block(data), write)


def keep(name: str, rows: list[tuple], only: list[str]) -> None:
    """Run ``name``'s figures of the modules ``only`` names (all when empty) into the scores file, then render."""
    known = {row[0] for row in rows}
    unknown = [m for m in only if m not in known]
    if unknown:
        raise SystemExit(f"--only {' '.join(unknown)}: mutants/ holds no checked mutant of it; known: {sorted(known)}")
    data = json.loads(SCORES.read_text()) if SCORES.exists() else {}
    run = data.setdefault("runs", {}).setdefault(name, {"modules": {}})
    run["date"] = dt.date.today().isoformat()
    for row in rows:
        if not only or row[0] in only:
            run["modules"][row[0]] = dict(zip(COLUMNS, row[1:7]))
    SCORES.write_text(json.dumps(data, indent=1) + "\n")
    render()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutants", type=Path, default=ROOT / "mutants")
    parser.add_argument("--min", type=float, default=0.9, help="lowest score a module may have (0.9 = 90%%)")
    parser.add_argument("--markdown", action="store_true", help="a Markdown table (for $GITHUB_STEP_SUMMARY)")
    parser.add_argument("--as", dest="name", help="keep the figures as this run in " + str(SCORES.relative_to(ROOT)))
    parser.add_argument("--only", nargs="+", default=[], help="with --as: only these modules (records.schema ...)")
    parser.add_argument("--render", action="store_true", help="rewrite docs/lab/mutation.md's block, and nothing else")
    args = parser.parse_args(argv)
    if args.render:
        render()
        return 0
    known = accounted()
    rows, open_survivors, bad = [], [], False
    for module, codes in sorted(results(args.mutants / "src").items()):
        checked = {n: c for n, c in codes.items() if c is not None}
        if not checked:
            continue
        killed = sum(c in KILLED for c in checked.values())
        survivors = sorted(n for n, c in checked.items() if c in SURVIVED | UNTESTED)
        untested = sum(c in UNTESTED for c in checked.values())
        listed = [n for n in survivors if n in known]
        other = Counter(c for c in checked.values() if c not in KILLED | SURVIVED | UNTESTED)
        score = (killed + len(listed)) / len(checked)
        bad |= score < args.min
        open_survivors += [n for n in survivors if n not in known]
        rows.append(
            (
                module,
                killed,
                len(listed),
                len(survivors) - len(listed),
                untested,
                len(checked),
                len(codes),
                score,
                ", ".join(f"{n} exit {c}" for c, n in sorted(other.items(), key=str)),
            )
        )
    if args.markdown:
        print(
            "| module | killed | equivalent | open survivors | of them untested | checked | mutants | score |\n"
            "|---|---|---|---|---|---|---|---|"
        )
        for module, k, eq, surv, untested, checked, total, score, _ in rows:
            print(f"| {module} | {k} | {eq} | {surv} | {untested} | {checked} | {total} | {score:.1%} |")
    else:
        print(
            f"{'module':40} {'killed':>7} {'equiv':>6} {'open':>5} {'untested':>9} {'checked':>8} {'mutants':>8} "
            f"{'score':>7}"
        )
        for module, k, eq, surv, untested, checked, total, score, other in rows:
            print(f"{module:40} {k:7} {eq:6} {surv:5} {untested:9} {checked:8} {total:8} {score:7.1%}  {other}")
    if args.name:
        keep(args.name, rows, args.only)
    if open_survivors:
        print(
            f"\n{len(open_survivors)} survivor(s) neither killed nor in {SURVIVORS.relative_to(ROOT)} "
            "(`mutmut show NAME` shows each):",
            file=sys.stderr,
        )
        for name in open_survivors:
            print(f"  {name}", file=sys.stderr)
    return 1 if bad or open_survivors else 0


if __name__ == "__main__":
    sys.exit(main())
