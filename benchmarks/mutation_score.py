"""The mutation score per module from mutmut's results (mutants/**/*.meta), and the survivors not yet
accounted for in docs/mutation-survivors.md (docs/mutation.md).

    python benchmarks/mutation_score.py [--min 0.9] [--markdown]

Killed counts kills, timeouts and segfaults (the mutant broke the code); a survivor listed in
docs/mutation-survivors.md as equivalent counts as accounted for, not as killed.  A mutant no unit test runs
(mutmut's "no tests") counts as checked and not killed, in its own column: nothing tried to kill it.  Exit status 1 when a
module's score (killed + accounted for) / checked is under --min, or a survivor is not accounted for.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SURVIVORS = ROOT / "docs" / "mutation-survivors.md"
KILLED = {1, 3, 36, 24, -24, 152, 255, -11, -9, 37}  # mutmut's kill, timeout and segfault exit codes
SURVIVED = {0}
UNTESTED = {33}  # mutmut's "no tests": no unit test runs the mutated function (a survivor nothing tried to kill)


def accounted() -> set[str]:
    """Mutant names listed in docs/mutation-survivors.md (a `name` in backticks at the start of a list item)."""
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutants", type=Path, default=ROOT / "mutants")
    parser.add_argument("--min", type=float, default=0.9, help="lowest score a module may have (0.9 = 90%%)")
    parser.add_argument("--markdown", action="store_true", help="a Markdown table (for $GITHUB_STEP_SUMMARY)")
    args = parser.parse_args(argv)
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
