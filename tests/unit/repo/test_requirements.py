"""docs/requirements.md's undo commands, each run by a test: the ones that touch only the checkout and cargo's home
run as written against scratch copies of them; the ones that remove system packages or services run as far as a
test may (apt-get's own simulation, systemctl on a scratch root), so a wrong name or flag fails here."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "requirements.md"
UNITS = Path("/lib/systemd/system")


def commands(heading: str) -> list[str]:
    """The commands of the first ```sh block under ``heading``: continuation lines joined, comments dropped."""
    section = PAGE.read_text(encoding="utf-8").split(f"## {heading}\n", 1)[1]
    block = section.split("```sh\n", 1)[1].split("\n```", 1)[0]
    joined = re.sub(r"\\\n\s*", "", block)
    return [line.split("#", 1)[0].strip() for line in joined.splitlines() if line.split("#", 1)[0].strip()]


def undo(prefix: str) -> str:
    """The undo command that starts with ``prefix`` (one, or the page changed)."""
    found = [c for c in commands("How to undo it") if c.startswith(prefix)]
    assert len(found) == 1, f"docs/requirements.md's undo block has {found} for {prefix!r}"
    return found[0]


def test_every_undo_command_is_one_a_test_runs():
    """The undo block and the services block hold exactly the commands the tests below run: a new line on the page
    without a test fails here."""
    tested = ("rm -rf ", "cargo uninstall ", "sudo apt-get remove ", "sudo apt-get autoremove")
    lines = commands("How to undo it")
    assert sorted(lines) == sorted(undo(prefix) for prefix in tested), lines
    assert [c.split()[:3] for c in commands("Services that start by themselves")] == [["sudo", "systemctl", "disable"]]


def test_rm_removes_what_run_made_in_the_checkout_and_nothing_else(tmp_path):
    """`rm -rf .venv .tools`, run as written in a scratch checkout holding both: they are gone, the rest stays."""
    for name in (".venv/bin/python", ".tools/bin/uv", "run", "src/serverbench/__init__.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    subprocess.run(shlex.split(undo("rm -rf ")), cwd=tmp_path, check=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run", "src"]


def test_cargo_uninstall_removes_the_oha_run_installed(tmp_path):
    """`cargo uninstall oha`, run as written against a scratch CARGO_HOME holding oha as `cargo install` (run's way)
    registers it: the binary and its registration are gone."""
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.skip("cargo is not installed: the command cannot be run here")
    home = tmp_path / "cargo"
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "oha").write_text("#!/bin/sh\n")
    (home / ".crates.toml").write_text(
        '[v1]\n"oha 1.16.0 (registry+https://github.com/rust-lang/crates.io-index)" = ["oha"]\n'
    )
    rustup = os.environ.get("RUSTUP_HOME") or str(Path.home() / ".rustup")  # the toolchain cargo's proxy runs
    env = {**os.environ, "CARGO_HOME": str(home), "RUSTUP_HOME": rustup}
    done = subprocess.run(shlex.split(undo("cargo uninstall ")), env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert not (home / "bin" / "oha").exists() and "oha" not in (home / ".crates.toml").read_text()


def simulated(command: str) -> subprocess.CompletedProcess:
    """An apt-get command of the page without sudo and with apt-get's own -s (simulate: nothing is removed)."""
    if shutil.which("apt-get") is None:
        pytest.skip("no apt-get here (the page's undo lines are Debian's and Ubuntu's)")
    argv = shlex.split(command)
    assert argv[:2] == ["sudo", "apt-get"], argv
    return subprocess.run(["apt-get", "-s", *argv[2:]], capture_output=True, text=True, timeout=120)


def test_apt_get_remove_names_packages_apt_knows():
    """`apt-get remove --purge` of the page's packages, simulated: apt parses it and knows every name (an unknown
    one is "Unable to locate package", exit 100)."""
    done = simulated(undo("sudo apt-get remove "))
    assert done.returncode == 0 and "Unable to locate" not in done.stdout + done.stderr, done.stdout + done.stderr


def test_apt_get_autoremove_parses():
    """`apt-get autoremove`, simulated: the command as the page gives it is one apt runs."""
    done = simulated(undo("sudo apt-get autoremove"))
    assert done.returncode == 0, done.stdout + done.stderr


def test_systemctl_disable_names_the_units_the_packages_ship(tmp_path):
    """`systemctl disable` of the page's units on a scratch root (--root, no daemon; --now, which stops the
    running service, needs one): each unit is a file an installed package ships (one that is not, where the others
    are, fails), enabled there, then disabled."""
    argv = shlex.split(commands("Services that start by themselves")[0])
    units = [a for a in argv[3:] if not a.startswith("-")]
    missing = [u for u in units if not (UNITS / f"{u}.service").is_file()]
    if len(missing) == len(units) or shutil.which("systemctl") is None or shutil.which("dpkg") is None:
        pytest.skip(f"none of the packages that ship {units} is installed here (or no systemctl, dpkg)")
    assert not missing, f"docs/requirements.md names units no installed package ships: {missing}"
    for unit in units:
        owner = subprocess.run(["dpkg", "-S", str(UNITS / f"{unit}.service")], capture_output=True, text=True)
        assert owner.returncode == 0, f"{unit}.service is no installed package's file: {owner.stderr}"
        (tmp_path / "lib" / "systemd" / "system").mkdir(parents=True, exist_ok=True)
        shutil.copy2(UNITS / f"{unit}.service", tmp_path / "lib" / "systemd" / "system")
    root = f"--root={tmp_path}"
    subprocess.run(["systemctl", root, "enable", *units], capture_output=True, check=True)
    done = subprocess.run(["systemctl", root, *[a for a in argv[2:] if a != "--now"]], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    state = subprocess.run(["systemctl", root, "is-enabled", *units], capture_output=True, text=True)
    assert state.stdout.split() == ["disabled"] * len(units), state.stdout + state.stderr
