"""Mutants mutmut does not make (issue 35): a call replaced by one of its arguments, an element dropped from a tuple,
a field dropped from a key, each held against the unit tests of the module it changes.

    # a fixed sample (seed 35; MODULES says how many of each module's mutants), in chunks under ten minutes each:
    flock /tmp/serverbench-turn.lock true && flock -s /tmp/serverbench-quiet.lock \\
        .venv/bin/python benchmarks/mutants_extra.py run --as after judge/decision.py
    ... run --as after judge/ab.py
    ... run --as after judge/signals.py records/results.py records/schema.py
    # docs/lab/mutation.md's block, from benchmarks/results/mutants-extra.json:
    .venv/bin/python benchmarks/mutants_extra.py render

The operators, AST-based, each one expression of the module's source replaced:

- ``call``: a call by one of its arguments (``min(threads, cores)`` -> ``(cores)``, ``replace(gate, ...)`` -> ``(gate)``);
- ``tuple``: one element dropped from a tuple literal (``(base, cand)`` -> ``(base,)``);
- ``key``: one field dropped from a key: an f-string in a function named ``*key*``, ``attrgetter``/``itemgetter``'s
  names, a tuple used as a subscript or as a ``key=`` function's value.

Words for a person are not mutated (as mutmut's ``do_not_mutate_patterns``): calls inside an f-string or a
``raise``, calls whose arguments are all text, ``print``; nor annotations.  Each mutant runs only its module's test
file (tests/unit/<package>/test_<module>.py) with ``-x -q -p no:cacheprovider``, on a copy of src/ placed first on
the path (the work tree is never changed), under a timeout of 4x the clean run (a mutant that times out counts as
killed, as in mutmut).  Each run is merged into benchmarks/results/mutants-extra.json under its name; ``render``
rewrites the block of docs/lab/mutation.md between ``<!-- BEGIN MEASURED: mutants-extra ... -->`` and its END, and a
unit test re-renders and compares (tests/unit/repo/test_mutants_extra.py).
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measured_block import rewrite  # noqa: E402 (a sibling script)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "mutants-extra.json"
DOC = ROOT / "docs" / "lab" / "mutation.md"
# The modules measured, and how many of each one's mutants a run checks: a surviving mutant runs the module's whole
# test file (judge/decision's 58 s, judge/ab's 32 s, the others' 4-8 s on the shared 2-core machine).
MODULES = {
    "judge/decision.py": 8,
    "judge/ab.py": 12,
    "judge/signals.py": 20,
    "records/results.py": 20,
    "records/schema.py": 25,
}
KEY_GETTERS = ("attrgetter", "itemgetter")


@dataclass(frozen=True)
class Mutant:
    module: str  # relative to src/serverbench
    kind: str  # call, tuple, key
    line: int
    before: str
    after: str
    source: bytes  # the whole mutated module

    @property
    def name(self) -> str:
        return f"{self.module}:{self.line} {self.kind}: {self.before} -> {self.after}"


class _Spans:
    """Byte offsets of nodes (ast's columns count UTF-8 bytes)."""

    def __init__(self, source: bytes):
        self.source = source
        self.starts = [0]
        for line in source.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (
            self.starts[node.lineno - 1] + node.col_offset,
            self.starts[node.end_lineno - 1] + node.end_col_offset,
        )

    def text(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.source[start:end].decode()


def _words(tree: ast.AST) -> set[int]:
    """ids of the nodes that are words for a person or types: inside f-strings, raise statements, annotations."""
    skip: set[int] = set()

    def below(node):
        skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            below(node.exc)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for arg in [*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs]:
                if arg.annotation is not None:
                    below(arg.annotation)
            if node.returns is not None:
                below(node.returns)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for d in node.decorator_list:
                below(d)
        if isinstance(node, ast.AnnAssign):
            below(node.annotation)
        elif isinstance(node, ast.JoinedStr):
            for value in node.values:
                below(value)
    return skip


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def _key_places(tree: ast.AST) -> tuple[set[int], set[int]]:
    """ids of tuples used as keys (a subscript's index, a ``key=`` lambda's value) and of the f-strings in a function
    named ``*key*``."""
    tuples, fstrings = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple):
            if not any(isinstance(e, ast.Slice) for e in node.slice.elts):  # an array's index is no key
                tuples.add(id(node.slice))
        elif isinstance(node, ast.keyword) and node.arg == "key" and isinstance(node.value, ast.Lambda):
            if isinstance(node.value.body, ast.Tuple):
                tuples.add(id(node.value.body))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and "key" in node.name:
            fstrings.update(id(inner) for inner in ast.walk(node) if isinstance(inner, ast.JoinedStr))
    return tuples, fstrings


def _tuple_text(spans: _Spans, elts: list[ast.AST]) -> str:
    inner = ", ".join(spans.text(e) for e in elts)
    return f"({inner},)" if len(elts) == 1 else f"({inner})"


def mutants(module: str) -> list[Mutant]:
    """Every mutant of ``module`` (relative to src/serverbench) that compiles, in source order, without duplicates."""
    source = (ROOT / "src" / "serverbench" / module).read_bytes()
    tree = ast.parse(source)
    spans = _Spans(source)
    skip = _words(tree)
    key_tuples, key_fstrings = _key_places(tree)
    edits: list[tuple[str, ast.AST, str]] = []  # (kind, node replaced, new text)
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            args = [a for a in node.args if not isinstance(a, ast.Starred)]
            values = [k.value for k in node.keywords if k.arg is not None]
            if name == "print" or not (args or values) or all(_is_text(a) for a in args + values):
                continue
            if name in KEY_GETTERS and len(node.args) >= 2:
                for i in range(len(node.args)):
                    kept = ", ".join(spans.text(a) for j, a in enumerate(node.args) if j != i)
                    edits.append(("key", node, f"{spans.text(node.func)}({kept})"))
                continue
            for a in args + values:
                edits.append(("call", node, f"({spans.text(a)})"))
        elif isinstance(node, ast.Tuple) and isinstance(node.ctx, ast.Load) and len(node.elts) >= 2:
            kind = "key" if id(node) in key_tuples else "tuple"
            for i in range(len(node.elts)):
                edits.append((kind, node, _tuple_text(spans, node.elts[:i] + node.elts[i + 1 :])))
        elif id(node) in key_fstrings:
            fields = [i for i, v in enumerate(node.values) if isinstance(v, ast.FormattedValue)]
            if len(fields) >= 2:
                for i in fields:
                    dropped = ast.JoinedStr(values=[v for j, v in enumerate(node.values) if j != i])
                    edits.append(("key", node, ast.unparse(dropped)))
    out, seen = [], {source}
    for kind, node, new in edits:
        start, end = spans.span(node)
        mutated = source[:start] + new.encode() + source[end:]
        if mutated in seen:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a mutant may compare with a literal by identity
                compile(mutated, module, "exec")
        except SyntaxError:
            continue
        seen.add(mutated)
        before = " ".join(spans.text(node).split())
        out.append(Mutant(module, kind, node.lineno, _short(before), _short(" ".join(new.split())), mutated))
    return sorted(out, key=lambda m: (m.line, m.kind, m.after))


def _short(text: str, most: int = 80) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def test_file(module: str) -> Path:
    """The unit test file named after ``module`` (judge/decision.py -> tests/unit/judge/test_decision.py)."""
    package, name = module.split("/")
    return ROOT / "tests" / "unit" / package / f"test_{name}"


class Sandbox:
    """A copy of src/ that a mutant is written into, placed first on the path of a copy of the tests."""

    def __init__(self, tests_from: str | None = None):
        self.dir = Path(tempfile.mkdtemp(prefix="mutants-extra-"))
        ignore = shutil.ignore_patterns("__pycache__")
        shutil.copytree(ROOT / "src", self.dir / "src", ignore=ignore)
        if tests_from:  # the tests of a commit (a "before" run of tests since changed)
            tar = subprocess.run(
                ["git", "-C", str(ROOT), "archive", tests_from, "tests"], capture_output=True, check=True
            )
            subprocess.run(["tar", "-x", "-C", str(self.dir)], input=tar.stdout, check=True)
        else:  # the tests as they were when the run began (a run may outlast an edit)
            shutil.copytree(ROOT / "tests", self.dir / "tests", ignore=ignore)
        for name in ("conftest.py", "pyproject.toml"):
            shutil.copy2(ROOT / name, self.dir / name)
        self.stamp = int(time.time()) - 10_000_000  # each write a new mtime: no stale bytecode of a same-size file

    def write(self, module: str, source: bytes) -> None:
        path = self.dir / "src" / "serverbench" / module
        path.write_bytes(source)
        self.stamp += 1
        os.utime(path, (self.stamp, self.stamp))

    def run(self, tests: Path, timeout: float) -> tuple[str, float]:
        """ "passed", "failed" or "timeout", and the seconds it took."""
        env = {**os.environ, "PYTHONPATH": str(self.dir / "src")}
        cmd = [sys.executable, "-m", "pytest", str(tests.relative_to(ROOT)), "-x", "-q", "-p", "no:cacheprovider"]
        started = time.monotonic()
        try:
            done = subprocess.run(
                cmd, cwd=self.dir, env=env, capture_output=True, timeout=timeout, start_new_session=True
            )
        except subprocess.TimeoutExpired:
            return "timeout", time.monotonic() - started
        return ("passed" if done.returncode == 0 else "failed"), time.monotonic() - started

    def imports_from_here(self) -> bool:
        env = {**os.environ, "PYTHONPATH": str(self.dir / "src")}
        where = subprocess.run(
            [sys.executable, "-c", "import serverbench; print(serverbench.__file__)"],
            env=env,
            capture_output=True,
            text=True,
            cwd=self.dir,
        ).stdout.strip()
        return where.startswith(str(self.dir))

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


def sample(modules: list[str], most: int, seed: int) -> list[Mutant]:
    """At most ``most`` mutants a module, drawn with ``seed`` (the same mutants every run of the same source)."""
    chosen = []
    for module in modules:
        every = mutants(module)
        picked = random.Random(f"{seed}:{module}").sample(every, min(most, len(every)))
        chosen += sorted(picked, key=lambda m: (m.line, m.kind, m.after))
    return chosen


def run(modules: list[str], most: int | None, seed: int, tests_from: str | None = None, verbose: bool = True) -> dict:
    """Each module's sample (``most`` a module, else its MODULES figure) against its test file: the counts, the
    survivors."""
    sandbox = Sandbox(tests_from)
    if not sandbox.imports_from_here():
        raise SystemExit(f"{sandbox.dir}: serverbench is not imported from the copy; is it installed non-editable?")
    started = time.monotonic()
    per_module, survivors = {}, []
    try:
        for module in modules:
            tests = test_file(module)
            if not tests.exists():
                raise SystemExit(f"{module}: no test file {tests.relative_to(ROOT)}; name the module's tests after it")
            clean, seconds = sandbox.run(tests, timeout=600)
            if clean != "passed":
                raise SystemExit(f"{tests.relative_to(ROOT)} fails without a mutant: fix the tests first")
            every = mutants(module)
            picked = sample([module], most or MODULES.get(module, 20), seed)
            counts = {"mutants": len(every), "checked": len(picked), "killed": 0, "timeout": 0, "survived": 0}
            original = (ROOT / "src" / "serverbench" / module).read_bytes()
            for m in picked:
                sandbox.write(module, m.source)
                outcome, took = sandbox.run(tests, timeout=max(30.0, 4 * seconds))
                sandbox.write(module, original)
                key = {"passed": "survived", "failed": "killed", "timeout": "timeout"}[outcome]
                counts[key] += 1
                if outcome == "passed":
                    survivors.append(m.name)
                if verbose:
                    print(f"{key:8} {took:5.1f}s {m.name}", flush=True)
            counts["clean_s"] = round(seconds, 1)
            per_module[module] = counts
    finally:
        sandbox.close()
    return {
        "date": dt.date.today().isoformat(),
        "seed": seed,
        "wall_s": round(time.monotonic() - started),
        "modules": per_module,
        "survivors": survivors,
    }


def merged(earlier: dict | None, run: dict) -> dict:
    """A run merged into the one stored under its name: its modules replace theirs (a run may be split in chunks
    of modules, each under the quiet lock's ten minutes), totals summed again."""
    out = {"modules": {}, "survivors": [], "wall_s": 0, **(earlier or {})}
    redone = set(run["modules"])
    out["survivors"] = [s for s in out["survivors"] if s.split(":")[0] not in redone] + run["survivors"]
    out["modules"] = {**out["modules"], **run["modules"]}
    out["wall_s"] += run["wall_s"]
    out["date"], out["seed"] = run["date"], run["seed"]
    out["checked"] = sum(c["checked"] for c in out["modules"].values())
    out["killed"] = sum(c["killed"] + c["timeout"] for c in out["modules"].values())
    out["score"] = round(out["killed"] / out["checked"], 4) if out["checked"] else None
    return out


def render_block(data: dict) -> str:
    runs = data.get("runs", {})
    if not runs:
        return "No run yet.\n"
    lines = [
        "| run | date | mutants checked | killed (timeouts) | survived | score | wall |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for name, r in runs.items():
        timeouts = sum(c["timeout"] for c in r["modules"].values())
        lines.append(
            f"| {name} | {r['date']} | {r['checked']} | {r['killed']} ({timeouts}) | {r['checked'] - r['killed']} "
            f"| {r['score']:.1%} | {r['wall_s']} s |"
        )
    # Each module's last run is its present: the mutants its source makes now, the survivors its tests leave now.
    latest = {m: name for name, r in runs.items() for m in r["modules"]}
    lines += ["", "| module | mutants made | " + " | ".join(f"{n}: killed / checked" for n in runs) + " |"]
    lines.append("|---|---:|" + "---:|" * len(runs))
    for module in sorted(latest):
        made = runs[latest[module]]["modules"][module]["mutants"]
        cells = []
        for r in runs.values():
            c = r["modules"].get(module)
            cells.append("" if c is None else f"{c['killed'] + c['timeout']} / {c['checked']}")
        lines.append(f"| {module} | {made} | " + " | ".join(cells) + " |")
    survivors = [s for name, r in runs.items() for s in r["survivors"] if latest.get(s.split(":")[0]) == name]
    lines += ["", f"Survivors, each module's of the last run that checked it ({len(survivors)}):", ""]
    lines += [f"- `{s}`" for s in survivors] or ["- none"]
    return "\n".join(lines) + "\n"


def render(write: bool = True) -> dict[Path, str]:
    """docs/lab/mutation.md with its mutants-extra block rendered from the results file; written when ``write``."""
    data = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    return rewrite(DOC, "mutants-extra", render_block(data), write)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks/mutants_extra.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="make a sample of mutants, run each module's tests against them")
    r.add_argument("modules", nargs="*", default=list(MODULES), help="paths under src/serverbench (default: MODULES)")
    r.add_argument("--most", type=int, help="mutants checked per module at most (default: each module's in MODULES)")
    r.add_argument("--seed", type=int, default=35, help="the sample's seed (default 35)")
    r.add_argument("--tests-from", help="the tests of this commit (default: the work tree's)")
    r.add_argument("--as", dest="name", help="merge the run into benchmarks/results/mutants-extra.json as NAME")
    ls = sub.add_parser("list", help="print every mutant of the modules, and how many")
    ls.add_argument("modules", nargs="*", default=list(MODULES))
    sub.add_parser("render", help="rewrite docs/lab/mutation.md's block from benchmarks/results/mutants-extra.json")
    args = parser.parse_args(argv)
    if args.command == "list":
        for module in args.modules:
            found = mutants(module)
            for m in found:
                print(m.name)
            print(f"{module}: {len(found)} mutants")
        return 0
    if args.command == "render":
        render()
        return 0
    result = run(args.modules, args.most, args.seed, args.tests_from)
    print(json.dumps({k: v for k, v in result.items() if k != "survivors"}, indent=1))
    print(f"survivors ({len(result['survivors'])}):", *result["survivors"], sep="\n  ")
    if args.name:
        data = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
        runs = data.setdefault("runs", {})
        runs[args.name] = merged(runs.get(args.name), result)
        RESULTS.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        render()
    return 0


if __name__ == "__main__":
    sys.exit(main())
