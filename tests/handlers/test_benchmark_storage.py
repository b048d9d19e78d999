"""pytest-benchmark's own storage and compare work on the handler benchmarks (a tiny selection, few rounds)."""

import json
import subprocess
import sys
from pathlib import Path

HANDLERS_DIR = Path(__file__).resolve().parent
SELECTION = "raw-wsgi-plaintext or aiohttp-json"
NAMES = ("test_handler[raw-wsgi-plaintext]", "test_handler[aiohttp-json]")


def _save(pytester, storage: Path) -> None:
    result = pytester.runpytest_subprocess(
        str(HANDLERS_DIR / "test_handlers.py"),
        "-m",
        "handler",
        "-k",
        SELECTION,
        "-p",
        "no:cacheprovider",
        "--benchmark-autosave",
        f"--benchmark-storage=file://{storage}",
        "--benchmark-min-rounds=5",
        "--benchmark-max-time=0.01",
        "--benchmark-columns=min,rounds",
    )
    result.assert_outcomes(passed=len(NAMES))


def test_autosaved_runs_are_read_back_by_pytest_benchmark_compare(pytester, tmp_path, monkeypatch):
    """Two runs saved by --benchmark-autosave hold both benchmarks with their extra info, and
    `pytest-benchmark compare` shows each benchmark of each run."""
    # Under xdist the sub-session inherits PYTEST_XDIST_WORKER, and pytest-benchmark would take it for a
    # worker and disable itself with a warning (an error here); it is a plain session of its own.
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    storage = tmp_path / "benchmarks"
    _save(pytester, storage)
    _save(pytester, storage)
    saved = sorted(storage.rglob("*.json"))
    assert [p.name[:5] for p in saved] == ["0001_", "0002_"]
    benchmarks = {b["name"]: b for b in json.loads(saved[0].read_text())["benchmarks"]}
    assert set(benchmarks) == set(NAMES)
    assert benchmarks[NAMES[0]]["extra_info"]["endpoint"] == "plaintext"
    assert benchmarks[NAMES[1]]["group"] == "json"
    assert benchmarks[NAMES[1]]["stats"]["rounds"] >= 5

    cli = Path(sys.executable).with_name("pytest-benchmark")
    compared = subprocess.run(
        [
            str(cli),
            "--storage",
            f"file://{storage}",
            "compare",
            "--columns=min,rounds",
            "--group-by=name",
            "0001",
            "0002",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert compared.returncode == 0, compared.stderr
    for name in NAMES:
        for run in ("0001", "0002"):
            assert f"{name} ({run}" in compared.stdout, compared.stdout
