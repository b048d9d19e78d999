"""The GitHub workflows: linted by actionlint, installing nothing beyond ./run, caching oha (keyed by the version ./run
builds), MongoDB by URL.

The last test runs `./run tests --collect-only` as an unprivileged user with passwordless sudo in a fresh
clone, as a hosted runner does; it builds a venv (minutes), so it is deselected unless -m fresh_checkout.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from serverbench.config.options import OPTIONS_BY_NAME
from serverbench.drivers.oha import VERSION as OHA_VERSION

ROOT = Path(__file__).resolve().parents[3]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
INSTALL_ACTIONLINT = "go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"


def _steps(path: Path) -> list[dict]:
    return [step for job in yaml.safe_load(path.read_text())["jobs"].values() for step in job["steps"]]


def _actionlint() -> str | None:
    found = shutil.which("actionlint")
    home = Path.home() / "go" / "bin" / "actionlint"
    return found or (str(home) if os.access(home, os.X_OK) else None)


def _ab_gate_step(tmp_path: Path, exits: dict[str, int], strict: str = "") -> tuple[int, str]:
    """ab-gate.yml's gate step run by bash -e as a runner would, its `./run gate` a stand-in exiting ``exits[variant]``:
    the step's exit status and its step summary.  Only the mapping of the gate's exits is under test here."""
    (step,) = [s for s in _steps(ROOT / ".github/workflows/ab-gate.yml") if s.get("name", "").startswith("A/B gate")]
    script = step["run"].replace('$(git merge-base "origin/${{ github.base_ref }}" HEAD)', "base-sha")
    cases = "\n".join(f"  *--variant\\ {v}\\ *) exit {code} ;;" for v, code in exits.items())
    stand_in = tmp_path / "run"
    stand_in.write_text(f'#!/bin/bash\ncase "$*" in\n{cases}\nesac\nexit 0\n')
    stand_in.chmod(0o755)
    summary = tmp_path / "summary.md"
    env = {"PATH": os.environ["PATH"], "GITHUB_STEP_SUMMARY": str(summary), "SERVERBENCH_STRICT": strict}
    done = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True)
    return done.returncode, summary.read_text() if summary.exists() else ""


def test_the_ab_gate_job_says_could_not_decide_and_fails_on_a_regression_or_bad_input(tmp_path):
    """ab-gate.yml: a gate that could not decide (exit 3) is said so in the summary and fails the job only with
    SERVERBENCH_STRICT=1; a regression (1) or bad input (2) of any cell fails it; all three cells are always gated."""
    assert _ab_gate_step(tmp_path, {}) == (0, "")
    status, summary = _ab_gate_step(tmp_path, {"gunicorn-sync-w2": 3})
    assert status == 0 and "**gunicorn-sync-w2 json: could not decide**" in summary
    assert _ab_gate_step(tmp_path, {"gunicorn-sync-w2": 3}, strict="1")[0] == 1
    assert _ab_gate_step(tmp_path, {"aiohttp": 1})[0] == 1
    status, summary = _ab_gate_step(tmp_path, {"aiohttp": 2, "uwsgi-p2t2": 3})
    assert status == 1 and "uwsgi-p2t2 json: could not decide" in summary


def test_every_workflow_passes_actionlint():
    """actionlint finds nothing in .github/workflows (syntax, expressions, action inputs, shell)."""
    actionlint = _actionlint()
    if actionlint is None:
        pytest.skip(f"actionlint is not installed: `{INSTALL_ACTIONLINT}` (./run tests does it when go is here)")
    assert WORKFLOWS
    run = subprocess.run(
        [actionlint, "-no-color", *map(str, WORKFLOWS)], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_a_workflow_installs_nothing_itself_and_caches_oha(path):
    """No step installs system packages (./run does, with sudo); each workflow that calls ./run caches its oha build."""
    steps = _steps(path)
    commands = [step.get("run", "") for step in steps]
    assert not [c for c in commands if "apt-get" in c or "apt install" in c], f"{path.name}: leave installing to ./run"
    if any("./run " in c for c in commands):
        caches = [step["with"] for step in steps if str(step.get("uses", "")).startswith("actions/cache@")]
        assert "~/.cargo/bin/oha" in [c["path"] for c in caches], (
            f"{path.name}: cache ~/.cargo/bin/oha as ab-gate.yml does"
        )
        keys = [c["key"] for c in caches if c["path"] == "~/.cargo/bin/oha"]
        assert all(k.endswith(f"-{OHA_VERSION}") for k in keys), f"{path.name}: key the oha cache by {OHA_VERSION}"


def test_the_perf_workflow_runs_mongodb_cells_against_a_mongo_service_by_url():
    """perf.yml starts a mongo service container and hands it to the suite with the option table's --mongo-url."""
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "perf.yml").read_text())
    service = workflow["jobs"]["perf"]["services"]["mongo"]
    assert service["image"].startswith("mongo:") and "27017:27017" in service["ports"]
    option = OPTIONS_BY_NAME["mongo_url"]
    perf = next(
        s["run"] for s in _steps(ROOT / ".github" / "workflows" / "perf.yml") if "./run perf" in s.get("run", "")
    )
    words = perf.split()
    url = words[words.index(option.flag) + 1]
    assert option.parse(url) == "mongodb://127.0.0.1:27017"


def test_the_cost_job_runs_pytest_dash_m_cost_with_no_path_as_the_docs_write_it():
    """tests.yml's `cost` job runs `pytest -m cost` (through ./run tests) naming no path, as docs/cost.md does: pytest
    finds tests/cost from testpaths, with every other test file collected beside it."""
    job = yaml.safe_load((ROOT / ".github" / "workflows" / "tests.yml").read_text())["jobs"]["cost"]
    [command] = [step["run"].split() for step in job["steps"] if "run" in step]
    assert command[:4] == ["./run", "tests", "-m", "cost"]
    assert not [arg for arg in command[2:] if arg.startswith("tests") or arg.endswith(".py")], command
    assert "pytest -m cost --perf-workloads json " in (ROOT / "docs" / "cost.md").read_text()


def test_the_readme_example_job_runs_the_readmes_first_command_as_written():
    """tests.yml's `readme-example` job runs the README's first example (the code block under "A first example")
    verbatim."""
    job = yaml.safe_load((ROOT / ".github" / "workflows" / "tests.yml").read_text())["jobs"]["readme-example"]
    [command] = [step["run"] for step in job["steps"] if "run" in step]
    readme = (ROOT / "README.md").read_text()
    example = readme.split("## A first example", 1)[1]
    first = example.split("```sh\n", 1)[1].split("\n", 1)[0]
    assert command == first, (command, first)


def test_run_installs_with_passwordless_sudo_when_not_root():
    """./run asks `sudo -n` (never a password prompt) when not root, and names both fixes when it cannot."""
    text = (ROOT / "run").read_text()
    assert "sudo -n true" in text and "$as_root apt-get update" in text
    assert "passwordless sudo" in text


USER = "serverbench-ci"  # made and removed by the test; an existing user of that name is never touched


def _sudo_user_missing() -> str | None:
    """Why the unprivileged-user test cannot run here (None when it can)."""
    if os.geteuid() != 0:
        return "needs root to create a user with passwordless sudo: run it with sudo (docs/lab/robustness.md)"
    missing = [b for b in ("useradd", "userdel", "sudo", "git") if shutil.which(b) is None]
    if missing:
        return f"{', '.join(missing)} not installed (apt-get install passwd sudo git)"
    if not Path("/etc/sudoers.d").is_dir():
        return "no /etc/sudoers.d to grant the test user passwordless sudo"
    try:
        pwd.getpwnam(USER)
    except KeyError:
        return None
    return f"a user {USER} exists already (left by an interrupted run?); remove it: userdel -r {USER}"


@pytest.fixture
def sudo_user(monkeypatch):
    """A throwaway user with passwordless sudo and its own copy of this working tree (a clone: no shared venv)."""
    reason = _sudo_user_missing()
    if reason:
        pytest.skip(reason)
    # Run through sudo on a runner, root's git reads a checkout another user owns (git calls it dubious ownership).
    for name, value in (("GIT_CONFIG_COUNT", "1"), ("GIT_CONFIG_KEY_0", "safe.directory"), ("GIT_CONFIG_VALUE_0", "*")):
        monkeypatch.setenv(name, value)
    subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", USER], check=True)
    grant = Path(f"/etc/sudoers.d/{USER}")
    try:
        grant.write_text(f"{USER} ALL=(ALL) NOPASSWD:ALL\n")
        grant.chmod(0o440)
        clone = Path(f"/home/{USER}/serverbench")
        subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], check=True)
        _overlay_working_tree(clone)
        subprocess.run(["chown", "-R", f"{USER}:{USER}", str(clone)], check=True)
        yield clone
    finally:
        grant.unlink(missing_ok=True)
        subprocess.run(["userdel", "-r", USER], capture_output=True)


def _overlay_working_tree(clone: Path) -> None:
    """The clone holds the last commit; copy the working tree's files over it (uncommitted edits, new files)."""
    listed = (
        subprocess.run(
            ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, clone / name)


def _path_without(program: str, folder: Path) -> str:
    """A PATH of links to every program on the usual PATH but ``program``: ./run then finds it missing."""
    folder.mkdir()
    for bin_dir in ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"):
        for entry in Path(bin_dir).iterdir() if Path(bin_dir).is_dir() else ():
            if entry.name != program and not (folder / entry.name).exists():
                (folder / entry.name).symlink_to(entry)
    return str(folder)


# A host that reaches the package registries through its own CA bundle names it in these; sudo drops them (a hosted
# runner's TLS works as it is).
CA_VARIABLES = (
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "CURL_CA_BUNDLE",
    "REQUESTS_CA_BUNDLE",
    "PIP_CERT",
)


@pytest.mark.fresh_checkout
def test_run_tests_collects_as_an_unprivileged_user_with_sudo(sudo_user):
    """`./run tests -n 0 --collect-only -q` in a fresh clone as a non-root user with passwordless sudo, chromium hidden
    from its PATH: ./run installs it with `sudo -n apt-get` (not "install them as root"), builds a venv, collects."""
    path = _path_without("chromium", sudo_user.parent / "path-without-chromium")  # only the browser tests need it
    started = time.monotonic()
    run = subprocess.run(
        [
            "sudo",
            "-u",
            USER,
            "-H",
            "env",
            f"PATH={path}",
            *(f"{name}={os.environ[name]}" for name in CA_VARIABLES if name in os.environ),
            "bash",
            "-c",
            f"cd {sudo_user} && ./run tests -n 0 --collect-only -q -p no:cacheprovider",
        ],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    out = run.stdout + run.stderr
    said = [line[line.index("serverbench:") :] for line in run.stderr.splitlines() if "serverbench:" in line]
    print(
        f"./run tests --collect-only as {USER}: exit {run.returncode} in {time.monotonic() - started:.0f} s",
        *said,
        sep="\n  ",
    )
    assert "serverbench: installing chromium with sudo -n apt-get" in run.stderr, out[-3000:]
    assert "serverbench: uv-sync: done in" in run.stderr, out[-3000:]  # its own venv, built
    assert run.returncode == 0, out[-3000:]
    assert "tests collected" in run.stdout, out[-3000:]


def test_the_documented_job_runs_every_test_marked_documented():
    """tests.yml's `documented` job runs `./run tests -m documented`, the tests that run a documented command as
    written and that the default run deselects (./run lock's resolving forms, the install lines, the timed examples),
    then docs/ci.md's `./run tests -m example_ci -n 0`, docs/handlers.md's `pytest -m handler` (one process) and
    docs/lab/robustness.md's census, fresh-user and interrupt-sweep lines as written."""
    job = yaml.safe_load((ROOT / ".github" / "workflows" / "tests.yml").read_text())["jobs"]["documented"]
    commands = [step["run"] for step in job["steps"] if "run" in step]
    assert commands[0].split()[:4] == ["./run", "tests", "-m", "documented"], commands
    assert "and not documented" in (ROOT / "pyproject.toml").read_text(), "addopts no longer deselects them"
    recipe = "./run tests -m example_ci -n 0"
    assert commands[1].startswith(recipe + " ") and f"`{recipe}`" in (ROOT / "docs" / "ci.md").read_text()
    assert (
        commands[2].startswith("./run tests -m handler -n 0 ")
        and "    pytest -m handler  " in (ROOT / "docs" / "handlers.md").read_text()
    )
    robustness = (ROOT / "docs" / "lab" / "robustness.md").read_text()
    assert all(f"```sh\n{command}\n```" in robustness for command in commands[3:5]), commands[3:5]
    assert "-m fresh_checkout" in commands[4] and '-m "census or not census"' in commands[3]
    assert f"```sh\n{commands[5]}\n```" in robustness and "benchmarks/interrupt_sweep.py run" in commands[5]


def test_the_sharded_perf_workflow_names_every_shard_of_its_n():
    """perf-sharded.yml's matrix lists the shards 1..N and writes N itself (`of`), and each job runs
    --perf-shard K/N from them: nektos/act leaves strategy.job-total empty, so a shard count read from it would be
    '1/' there."""
    job = yaml.safe_load((ROOT / ".github" / "workflows" / "perf-sharded.yml").read_text())["jobs"]["shard"]
    matrix = job["strategy"]["matrix"]
    (n,) = matrix["of"]
    assert matrix["shard"] == list(range(1, n + 1))
    (run,) = [s["run"] for s in job["steps"] if "./run perf" in s.get("run", "")]
    assert '--perf-shard "${{ matrix.shard }}/${{ matrix.of }}"' in run and "job-total" not in run
