"""`serverbench gate` by the routes docs/gate.md shows beside `--base-ref`: the base arm in another environment
(`--base-python`) and a known cost injected into the candidate (`--cand-env SERVERBENCH_BURN_US=20`).

One run takes both: the base in a second venv (its own interpreter, the same packages through a .pth file that
also notes each start), the candidate burning 20 µs a request. The counted signal finds the burn before any
timed block (about 85 s here), so the run is a regression, exit 1. Marked `documented`: tests.yml's `documented`
job runs it.
"""

from __future__ import annotations

import json
import re
import shlex
import site
import subprocess
import sys
from pathlib import Path

import pytest

from serverbench.measure.counting.callgrind import valgrind_missing

ROOT = Path(__file__).resolve().parents[3]
pytestmark = [
    pytest.mark.documented,
    pytest.mark.usefixtures("no_leaks"),
    pytest.mark.alone(reason="a gate: its timed blocks, if the count does not end it, judge timings"),
]


def documented(flag: str) -> list[str]:
    """The words of docs/gate.md's example line that gives ``flag``."""
    block = (ROOT / "docs" / "gate.md").read_text().split("```sh\n", 1)[1].split("```", 1)[0]
    [line] = [line.split("#")[0] for line in block.splitlines() if f" {flag} " in line]
    return shlex.split(line)


def another_environment(path: Path) -> Path:
    """A venv of its own whose interpreter sees this environment's packages, and notes each start in
    ``path/started``: the proof that an arm ran in it."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    [packages] = (path / "lib").glob("python3*/site-packages")
    here = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (packages / "another-environment.pth").write_text(
        f"import os, site, sys; list(map(site.addsitedir, {here!r})); "
        "open(os.path.join(sys.prefix, 'started'), 'a').close()\n"
    )
    return path / "bin" / "python"


def test_base_python_and_cand_env_routes_find_an_injected_cost(tmp_path):
    """`--base-python OTHER` (the base arm runs in OTHER: its interpreter started) with the candidate given
    `--cand-env SERVERBENCH_BURN_US=20`: a counted regression, exit 1, the decision file says so."""
    missing = valgrind_missing()
    if missing:
        pytest.skip(missing)
    base_python = documented("--base-python")
    cand_env = documented("--cand-env")
    assert base_python[:6] == cand_env[:6] == ["serverbench", "gate", "--variant", "aiohttp", "--workload", "json"]
    assert cand_env[6:] == ["--cand-env", "SERVERBENCH_BURN_US=20"], cand_env
    other = another_environment(tmp_path / "old")
    argv = [*base_python[:7], str(other), *cand_env[6:], "--json", str(tmp_path / "decision.json")]
    done = subprocess.run(
        [str(Path(sys.executable).parent / argv[0]), *argv[1:]],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=900,
    )
    assert done.returncode == 1, done.stdout[-4000:]
    assert (tmp_path / "old" / "started").exists(), "the base arm never started the --base-python interpreter"
    decision = json.loads((tmp_path / "decision.json").read_text())
    assert decision["verdict"] == "regression" and decision["decisions"]["cost"]["verdict"] == "regression"
    assert re.search(r"instructions per request \(counted\) +Δ \+\d", done.stdout), done.stdout[-4000:]
