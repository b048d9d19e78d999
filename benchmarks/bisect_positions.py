"""Issue 36's benchmark: `serverbench bisect` on scratch repositories of 16 commits after the good end.

Each repository is examples/flask-todo (a user's app, with serverbench installed from its wheel in a venv of
its own) followed by 16 commits: neutral ones (a comment, a note file), one build-breaking commit (a syntax
error in todo/app.py at commit 8, the middle commit, so every run meets it; fixed at commit 9) and, at the
position under test, one real regression: an N+1 query in the listing (one SELECT per row instead of one for
all).  A range without the regression must answer "none above 2.0%".  Per run: the step found, the counts
used against log2(16) + 2 = 6, the skipped attempts and the wall time.

    python benchmarks/bisect_positions.py setup /tmp/bisect-bench            # the wheel and the venv, once
    flock -s /tmp/serverbench-quiet.lock python benchmarks/bisect_positions.py run /tmp/bisect-bench \\
        --positions 1,4,7 --out benchmarks/results/bisect-positions.json      # counts: the shared quiet lock
    python benchmarks/bisect_positions.py table benchmarks/results/bisect-positions.json

`--reference` runs the same on a clone of this checkout (the reference apps, gunicorn-sync-w2/flask /json)
instead, with this checkout's environment.  Runs are appended to --out.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
COMMITS, BREAK, FIX = 16, 8, 9
USER = {
    "example": ROOT / "examples" / "flask-todo",
    "file": "todo/app.py",
    "line": '    rows = db().execute("SELECT id, title, done FROM todo ORDER BY id").fetchall()\n',
    "n_plus_one": (
        '    ids = db().execute("SELECT id FROM todo ORDER BY id").fetchall()\n'
        '    rows = [db().execute("SELECT id, title, done FROM todo WHERE id = ?", i).fetchone() for i in ids]\n'
    ),
    "cell": ["--variant", "waitress-t4", "--endpoint", "list"],
}
REFERENCE = {
    "file": "apps/flask_app.py",
    "line": '    return jsonify(message="Hello, World!")\n',
    "debug_log": '    app.logger.debug("json: %s", __import__("json").dumps({"message": "Hello, World!"}, indent=2))\n',
    "cell": ["--variant", "gunicorn-sync-w2", "--workload", "json"],
}


def sh(argv, **kwargs) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        sys.exit(f"{' '.join(map(str, argv))} exited {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done.stdout.strip()


def git(repo: Path, *argv: str) -> str:
    return sh(["git", "-C", str(repo), "-c", "user.email=bench@localhost", "-c", "user.name=bench", *argv])


def uv() -> str:
    found = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    if not Path(found).exists():
        sys.exit("uv is needed to build the wheel and the venv: run ./run once (it installs it in .venv)")
    return found


def setup(folder: Path) -> None:
    """serverbench's wheel from a copy of this checkout, and a venv with it, flask and the servers."""
    source = folder / "source"
    shutil.rmtree(source, ignore_errors=True)
    source.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source)
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    sh([uv(), "build", "--wheel", "-q", "--out-dir", str(folder / "wheels"), str(source)])
    wheel = sorted((folder / "wheels").glob("serverbench-*.whl"))[-1]
    sh([uv(), "venv", "-q", "--python", sys.executable, str(folder / "venv")])
    python = folder / "venv" / "bin" / "python"
    sh(
        [
            uv(),
            "pip",
            "install",
            "-q",
            "--python",
            str(python),
            str(wheel),
            "flask>=2.3",
            "waitress>=2.1",
            "gunicorn>=21",
        ]
    )
    print(f"{folder / 'venv'}: serverbench from {wheel.name}, flask, waitress, gunicorn")


def commit_file(repo: Path, path: str, text: str, subject: str) -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", subject)


def history(repo: Path, file: str, regress: Callable, position: int | None, subject: str) -> str:
    """The good end, then 16 commits; returns the good end's id."""
    good = git(repo, "rev-parse", "HEAD")
    for i in range(1, COMMITS + 1):
        text = (repo / file).read_text()
        if i == position:
            commit_file(repo, file, regress(text), subject)
        elif i == BREAK:
            commit_file(repo, file, text + "\ndef half_written(:\n", "start a helper (does not build)")
        elif i == FIX:
            commit_file(repo, file, text.replace("\ndef half_written(:\n", ""), "finish the helper")
        elif i % 2:
            commit_file(repo, f"notes/{i}.md", f"Note {i}.\n", f"notes: {i}")
        else:
            commit_file(repo, file, text + f"# reviewed ({i})\n", f"comment {i}")
    return good


def user_repo(folder: Path, position: int | None) -> tuple[Path, str]:
    repo = folder / f"user-{position or 'none'}"
    shutil.rmtree(repo, ignore_errors=True)
    shutil.copytree(USER["example"], repo, ignore=shutil.ignore_patterns("__pycache__", "*.sqlite3*"))
    sh(["git", "init", "-q", "-b", "main", str(repo)])
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "flask-todo as in examples/")

    def regress(text: str) -> str:
        assert USER["line"] in text, "examples/flask-todo/todo/app.py no longer has the listing's query"
        return text.replace(USER["line"], USER["n_plus_one"])

    return repo, history(repo, USER["file"], regress, position, "list: one query per row (N+1)")


def reference_repo(folder: Path, position: int | None) -> tuple[Path, str]:
    """A clone of this checkout; the regression: /json logs its answer at debug level, pretty-printed even though
    debug logging is off (the argument is built before the logger decides)."""
    repo = folder / f"reference-{position or 'none'}"
    shutil.rmtree(repo, ignore_errors=True)
    sh(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(repo)])

    def regress(text: str) -> str:
        assert REFERENCE["line"] in text, "apps/flask_app.py no longer answers /json with this line"
        return text.replace(REFERENCE["line"], REFERENCE["debug_log"] + REFERENCE["line"])

    return repo, history(repo, REFERENCE["file"], regress, position, "json: log the answer at debug level")


def run(folder: Path, positions: list[int | None], out: Path, reference: bool) -> None:
    rows = json.loads(out.read_text()) if out.exists() else []
    for position in positions:
        repo, good = (reference_repo if reference else user_repo)(folder, position)
        bisect_json = folder / f"bisect-{'reference' if reference else 'user'}-{position or 'none'}.json"
        python = sys.executable if reference else str(folder / "venv" / "bin" / "python")
        env = {**os.environ, "PATH": f"{Path(python).parent}:{os.environ['PATH']}"}
        env.pop("VIRTUAL_ENV", None)
        cell = REFERENCE["cell"] if reference else USER["cell"]
        argv = [str(Path(python).parent / "serverbench"), "bisect", "--repo", str(repo), "--good", good, *cell]
        argv += ["--no-confirm", "--json", str(bisect_json)]
        started = time.monotonic()
        done = subprocess.run(argv, capture_output=True, text=True, env=env)
        wall = time.monotonic() - started
        record = json.loads(bisect_json.read_text()) if bisect_json.exists() else None
        steps = [(s["before"], s["after"], s["change"]) for s in record["steps"]] if record else []
        expected = [] if position is None else [(position - 1, position)]
        rows.append(
            {
                "app": "reference gunicorn-sync-w2/flask json" if reference else "flask-todo waitress-t4 list",
                "position": position,
                "commits": COMMITS,
                "found": [(a, b) for a, b, _ in steps] == expected,
                "steps": steps,
                "verdict": record and record["verdict"],
                "exit": done.returncode,
                "counted": record and record["counted"],
                "skipped": record and record["skipped"],
                "budget": int(math.log2(COMMITS)) + 2,
                "wall_s": round(wall, 1),
                "count_s": sorted(c["seconds"] for c in record["commits"] if c["per_request"]) if record else [],
                "file": str(bisect_json),
                "stderr_tail": done.stderr[-600:] if done.returncode not in (0, 1) else "",
            }
        )
        print(json.dumps(rows[-1]), flush=True)
        out.write_text(json.dumps(rows, indent=2) + "\n")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=("setup", "run", "table"))
    p.add_argument("path", type=Path, help="the working folder (setup, run) or the results file (table)")
    p.add_argument("--positions", default="1,4,7,11,13,16,none", help="regression positions; 'none': no regression")
    p.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "bisect-positions.json")
    p.add_argument("--reference", action="store_true", help="a clone of this checkout instead of flask-todo")
    args = p.parse_args()
    if args.what == "setup":
        setup(args.path)
    elif args.what == "run":
        positions = [None if x == "none" else int(x) for x in args.positions.split(",")]
        run(args.path, positions, args.out, args.reference)
    else:
        from serverbench.report.bisect import positions_table

        print(positions_table(json.loads(args.path.read_text())))


if __name__ == "__main__":
    main()
