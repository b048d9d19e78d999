"""`./run` installs what the command needs: a `./run perf` whose --perf-fault goes through toxiproxy builds
toxiproxy-server with Go (as `./run tests` does), and without Go it stops before anything starts, naming the fix.

The build needs Go's module proxy and the run is timed, so that test is deselected unless -m documented (tests.yml's
`documented` job runs it); the refusal needs neither and runs with the unit tests.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
NARROW = [  # one server, a short window (as tests/integration/backends/test_backend_faults.py runs the docs' lines)
    "tests/perf/test_throughput.py",
    "--perf-variants=gunicorn-sync-w2",
    "--perf-duration=3",
    "--perf-warmup=0",
    "--perf-connections=8",
    "--perf-threads=1",
    "-p",
    "no:cacheprovider",
]


def path_without(tmp_path: Path, *names: str) -> str:
    """A PATH of one folder linking every program of this PATH but ``names``: a machine without them."""
    farm = tmp_path / "bin"
    farm.mkdir()
    for folder in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(folder):
            continue
        for entry in os.scandir(folder):
            link = farm / entry.name
            if entry.name not in names and not link.exists() and os.access(entry.path, os.X_OK):
                link.symlink_to(entry.path)
    return str(farm)


def fresh_home(tmp_path: Path, path: str) -> dict[str, str]:
    """The environment of a user whose HOME has no ~/go/bin: only PATH and HOME changed."""
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "UV_"))}
    return {**env, "HOME": str(home), "PATH": path}


def test_run_perf_with_a_toxiproxy_fault_and_no_go_names_the_fix(tmp_path):
    """`./run perf --perf-fault=slow-redis:200ms` on a machine with neither toxiproxy-server nor Go exits 1 before
    any install or test, naming Go and the command that builds toxiproxy-server."""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    for name in ("run", "pyproject.toml", "uv.lock", "src/serverbench/drivers/oha.py"):  # run reads oha's version there
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, checkout / name)
    if not (ROOT / ".tools" / "bin" / "uv").is_file():
        pytest.skip("no .tools/bin/uv: run the tests through ./run tests, which installs it")
    (checkout / ".tools").symlink_to(ROOT / ".tools")
    env = fresh_home(tmp_path, path_without(tmp_path, "go", "toxiproxy-server"))
    done = subprocess.run(
        ["./run", "perf", "--perf-workloads=redis", "--perf-fault=slow-redis:200ms"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    assert "--perf-fault slow-redis:200ms needs toxiproxy-server" in done.stderr, done.stderr
    assert "go install github.com/Shopify/toxiproxy/v2/cmd/server@v2.5.0" in done.stderr, done.stderr
    assert "started" not in done.stderr, f"it installed something first:\n{done.stderr}"


@pytest.mark.documented
def test_run_perf_builds_toxiproxy_for_the_documented_fault(tmp_path):
    """docs/backend-faults.md's slow-redis line through `./run perf` where toxiproxy-server is not installed: ./run
    builds it with Go into ~/go/bin, and the trial fails naming the fault, nothing recorded."""
    go = shutil.which("go")
    if go is None:
        pytest.skip("go is not installed: the build cannot be run here")
    env = fresh_home(tmp_path, path_without(tmp_path, "toxiproxy-server"))
    for name in ("GOMODCACHE", "GOCACHE"):  # Go's caches as they are (the binary is what is missing)
        env[name] = subprocess.run([go, "env", name], capture_output=True, text=True, check=True).stdout.strip()
    out = tmp_path / "out.json"
    done = subprocess.run(
        ["./run", "perf", "--perf-workloads=redis", "--perf-fault=slow-redis:200ms", *NARROW, f"--perf-json={out}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=540,
    )
    assert "serverbench: toxiproxy-server: done in" in done.stderr, done.stderr[-3000:]
    assert (Path(env["HOME"]) / "go" / "bin" / "toxiproxy-server").is_file()
    assert done.returncode == 1, done.stdout[-3000:]
    fault = r"backend fault: redis was slowed by 200 ms per answer 1\.\d\d s into the .* window \(slow-redis:200ms@1s\)"
    assert re.search(fault, done.stdout), done.stdout[-3000:]
    assert json.loads(out.read_text())["results"] == []
