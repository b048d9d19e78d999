"""Does a counted POST keep its count when the machine is busy?  Counts of one user endpoint with a body.

    .venv/bin/python benchmarks/cost_under_load.py --runs 12 --busy 3 --label after \
        --out benchmarks/results/cost-under-load.json
    .venv/bin/python benchmarks/cost_under_load.py --runs 12 --busy 3 --label before --src /tmp/wt/src ...
    .venv/bin/python benchmarks/cost_under_load.py render    # docs/lab/cost.md's block, from the results file

The cell is the one tests/integration/userapps/test_user_app_cost.py counts: waitress-t4 serving a small
WSGI shop, ``POST /items`` with headers and a JSON body, 40 requests.  Each run is ``pytest -m cost`` in a
fresh project (a fresh server under valgrind); ``--busy N`` starts N busy-loop processes for the whole
batch (ended by pid) so the client and the server are scheduled late, as on a loaded CI runner.  ``--src``
counts with another checkout's serverbench (the code before a change).  Counting, not timing: no load lock.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measured_block import rewrite  # noqa: E402 (a sibling script)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks/results/cost-under-load.json"
DOC = ROOT / "docs/lab/cost.md"
TEST = ROOT / "tests/integration/userapps/test_user_app_cost.py"
BUSY = "while True: pass"


def _project(folder: Path) -> None:
    spec = importlib.util.spec_from_file_location("user_app_cost", TEST)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    (folder / "tox.ini").write_text(module.INI)
    (folder / "test_cost.py").write_text(module.COST_TEST)
    (folder / "shop.py").write_text(module.SHOP.format(extra=0))


def count(folder: Path, src: Path | None) -> dict:
    records = folder / "records.json"
    records.unlink(missing_ok=True)
    env = dict(os.environ, PYTHONPATH=str(src)) if src else dict(os.environ)
    command = [sys.executable, "-m", "pytest", "-q", "-m", "cost", "-k", "create", "-p", "no:cacheprovider"]
    done = subprocess.run([*command, f"--perf-json={records}"], cwd=folder, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the count failed (exit {done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    (cell,) = json.loads(records.read_text())["cost"]
    return cell


def run(runs: int, busy: int, label: str, src: Path | None, out: Path) -> None:
    loops = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(busy)]
    try:
        with tempfile.TemporaryDirectory(prefix="serverbench-cost-load-") as tmp:
            _project(Path(tmp))
            cells = [count(Path(tmp), src) for _ in range(runs)]
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()
    data = json.loads(out.read_text()) if out.exists() else {}
    data[label] = {
        "busy": busy,
        "requests": cells[0]["requests"],
        "cell": f"{cells[0]['variant']}/{cells[0]['app']}/{cells[0]['workload']} (POST, JSON body)",
        "runs": [round(c["instructions"] / c["requests"], 1) for c in cells],
    }
    out.write_text(json.dumps(data, indent=1) + "\n")
    print(label, _row(data[label]))


def _row(entry: dict) -> str:
    counts = entry["runs"]
    low, high, median = min(counts), max(counts), statistics.median(counts)
    return (
        f"| {entry['busy']} | {len(counts)} | {median:,.0f} | {low:,.0f} | {high:,.0f} "
        f"| {(high - low) / median:.2%} | {max(abs(c / median - 1) for c in counts):.2%} |"
    )


def table(data: dict) -> str:
    """One row per batch: its spread around the median, the figure a stored baseline's tolerance is set against."""
    lines = [
        "| code | busy loops | runs | median instr/req | lowest | highest | range | largest off the median |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [f"| {label} {_row(entry)}" for label, entry in data.items()]
    return "\n".join(lines) + "\n"


def render(write: bool = True) -> dict[Path, str]:
    """docs/lab/cost.md with its block rendered from the results file; written when ``write``."""
    return rewrite(DOC, "cost-under-load", table(json.loads(RESULTS.read_text())), write)


def main() -> None:
    if sys.argv[1:] == ["render"]:
        render()
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=12)
    parser.add_argument("--busy", type=int, default=3, help="busy-loop processes beside the counts")
    parser.add_argument("--label", default="after")
    parser.add_argument("--src", type=Path, help="a checkout's src/ to count with (default: this one's)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    run(args.runs, args.busy, args.label, args.src, args.out)


if __name__ == "__main__":
    main()
