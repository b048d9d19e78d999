"""An arm's interpreter given as a version (``3.13``, ``3.13t``, ``pypy3.10``): found, and an environment made for it.

``serverbench gate --base-python 3.11 --cand-python 3.13`` gates an interpreter upgrade on the project's own lock:
each arm's environment is the lock's packages (``uv sync --frozen --no-install-project``, the extras of
:data:`EXTRAS` the project declares) installed for that interpreter, made once under the user's cache folder, keyed
by the interpreter and a hash of the lock and pyproject.toml it was made from, and reused by every later gate.  The
base arm's lock is the base ref's (``git show``), so a dependency bump is gated by the same command.  serverbench
itself is put on the environment's path (a ``.pth`` file naming the running copy), as a venv made by hand has it.

Each check is made before anything starts: the version is installed here (else where to get it), the lock resolves
for it (``uv sync --dry-run``), a path given instead is an interpreter (:func:`..host.interpreter.describe_of`).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import serverbench

from ...errors import ConfigError, ServerbenchError
from ..host.interpreter import describe_of
from ..trees.lockenv import uv_binary

VERSION = re.compile(r"^(?:(?:cpython|python)-?)?(3\.\d{1,2})(t?)$|^pypy-?(3\.\d{1,2})$")
EXTRAS = ("apps", "servers", "perf")  # the project's extras a server needs (serverbench's own; a user project's perf)
COMPLETE = ".serverbench-complete"  # written last: a folder without it was interrupted and is made again
FIND_TIMEOUT_S = 60.0
SYNC_TIMEOUT_S = 1800.0
WHERE = (
    "get it with `uv python install {v}`, `pyenv install {v}`, your system's packages (`apt install python{v}`; "
    "deadsnakes on Ubuntu), or in GitHub Actions `actions/setup-python` with `python-version: '{v}'`; "
    "or give a venv's bin/python"
)


class EnvironmentMakeError(ServerbenchError):
    """uv could not make an arm's environment (its message is uv's last line)."""


def is_version(text: str) -> bool:
    """``3.13``, ``3.13t``, ``cpython3.13``, ``pypy3.10``: a version to find, not a path."""
    return VERSION.match(text) is not None


def cache_root(environ: Mapping[str, str] = os.environ) -> Path:
    """``$XDG_CACHE_HOME/serverbench/envs`` (``~/.cache`` when unset)."""
    base = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "serverbench" / "envs"


@dataclass(frozen=True)
class Lock:
    """The files an environment is made from (the lock and its pyproject.toml, as text) and where they came from."""

    where: str  # "uv.lock at origin/main", "uv.lock in /path"
    lock: str
    pyproject: str

    @property
    def digest(self) -> str:
        return hashlib.sha256((self.lock + "\0" + self.pyproject).encode()).hexdigest()[:16]

    @property
    def extras(self) -> list[str]:
        """The extras of EXTRAS the pyproject.toml declares (a line ``name = [`` under optional-dependencies)."""
        declared = self.pyproject.split("[project.optional-dependencies]", 1)[-1].split("\n[", 1)[0]
        return [e for e in EXTRAS if re.search(rf"^{e}\s*=", declared, re.M)]


def lock_of(folder: Path, ref: str | None = None) -> Lock:
    """``folder``'s uv.lock and pyproject.toml, in the working tree or (``ref``) at that git ref."""
    folder = Path(folder).resolve()
    if ref is None:
        try:
            return Lock(
                f"uv.lock in {folder}", (folder / "uv.lock").read_text(), (folder / "pyproject.toml").read_text()
            )
        except OSError:
            raise ConfigError(
                f"an interpreter version makes the arm's environment from the project's uv.lock, and {folder} has "
                "no uv.lock and pyproject.toml: run `uv lock` there, or give a venv's bin/python"
            ) from None
    texts = []
    for name in ("uv.lock", "pyproject.toml"):
        done = subprocess.run(
            ["git", "show", f"{ref}:./{name}"], cwd=folder, capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise ConfigError(
                f"the base arm's environment is made from {name} at {ref}, which git cannot show "
                f"({done.stderr.strip().splitlines()[-1:] or ['no output']}): commit a uv.lock there, or give "
                "--base-python a venv's bin/python"
            )
        texts.append(done.stdout)
    return Lock(f"uv.lock at {ref}", *texts)


def find(version: str, flag: str, uv: str | None) -> str:
    """The installed interpreter of ``version`` (uv's discovery of system interpreters: PATH, pyenv's shims, uv's own
    installs; never a virtual environment, never a download; else pyenv's installs), or a ConfigError saying where
    to get it."""
    if uv is None:
        raise ConfigError(
            f"{flag} {version}: finding an interpreter by version and making its environment needs uv: "
            "`pip install uv` (./run keeps its pinned uv in .tools/bin), or give a venv's bin/python"
        )
    done = subprocess.run(
        [uv, "python", "find", "--system", "--no-python-downloads", "--python-preference", "system", version],
        capture_output=True,
        text=True,
        timeout=FIND_TIMEOUT_S,
        check=False,
    )
    found = done.stdout.strip().splitlines()[-1:] if done.returncode == 0 else pyenv_installed(version)
    if not found:
        shown = version.removeprefix("cpython").removeprefix("python").lstrip("-")
        raise ConfigError(f"{flag} {version}: no such interpreter is installed here; " + WHERE.format(v=shown))
    return found[0]


def pyenv_installed(version: str, environ: Mapping[str, str] = os.environ) -> list[str]:
    """``version``'s interpreter among pyenv's installs (uv's discovery stops at a pyenv shim of a version pyenv
    has not selected), the newest first; [] without one."""
    match = VERSION.match(version)
    if match is None:
        return []
    minor, free, pypy = match.groups()
    root = Path(environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    pattern = f"pypy{pypy}*/bin/pypy{pypy}" if pypy else f"{minor}.*{free}/bin/python{minor}{free}"
    found = sorted(
        root.glob(pattern), key=lambda p: [int(x) if x.isdigit() else 0 for x in re.split(r"[.t-]", p.parts[-3])]
    )
    return [str(p) for p in reversed(found) if p.is_file() and p.parts[-3].endswith("t") == bool(free)][:1]


def _sync(uv: str, python: str, target: Path, lock: Lock, project: Path, dry: bool) -> subprocess.CompletedProcess:
    argv = [uv, "sync", "--frozen", "--no-install-project", "--quiet", "--python", python]
    argv += [a for e in lock.extras for a in ("--extra", e)] + (["--dry-run"] if dry else [])
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT")}
    env["UV_PROJECT_ENVIRONMENT"] = str(target)
    return subprocess.run(
        argv, cwd=project, env=env, capture_output=True, text=True, timeout=SYNC_TIMEOUT_S, check=False
    )


def _last_line(done: subprocess.CompletedProcess) -> str:
    lines = [line for line in (done.stderr or done.stdout or "").splitlines() if line.strip()]
    return lines[-1].strip() if lines else f"exit {done.returncode}, no output"


class Maker:
    """Finds interpreters by version and makes (or reuses) their environments from a lock, under ``root``."""

    def __init__(self, repo: Path, root: Path | None = None):
        self.repo = Path(repo)
        self.uv = uv_binary(self.repo)
        self.root = cache_root() if root is None else Path(root)

    def target(self, python: str, lock: Lock) -> tuple[Path, dict]:
        """The cache folder of (interpreter, lock), and the interpreter's description."""
        info = describe_of(python)
        free = "t" if info.get("free_threaded") else ""
        return self.root / f"{info['implementation']}-{info['version']}{free}-{lock.digest}", info

    def check(self, version: str, flag: str, lock: Lock) -> tuple[str, Path]:
        """Before anything starts: the interpreter of ``version`` is installed, and the lock resolves for it (a
        dry run of the sync).  Returns the interpreter and its environment's folder."""
        python = find(version, flag, self.uv)
        target, info = self.target(python, lock)
        if (target / COMPLETE).exists():
            return info["executable"], target
        assert self.uv is not None  # find() needs it
        done = _sync(self.uv, info["executable"], target, lock, self._staged(lock), dry=True)
        if done.returncode != 0:
            raise ConfigError(
                f"{flag} {version}: the project's {lock.where} does not install on {info['implementation']} "
                f"{info['version']} ({_last_line(done)}): pick an interpreter the lock supports (its requires-python), "
                "or `uv lock` again for it"
            )
        return info["executable"], target

    def environment(self, version: str, flag: str, lock: Lock) -> str:
        """The interpreter of the environment of ``version`` made from ``lock``: reused when made before."""
        python, target = self.check(version, flag, lock)
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(f"{target}.lock", "w") as held:  # two gates at once: one makes it, the other waits and reuses it
            fcntl.flock(held, fcntl.LOCK_EX)
            if not (target / COMPLETE).exists():
                self._make(python, target, lock)
            else:
                print(f"{flag} {version}: reusing the environment {target}", file=sys.stderr)
        self._harness(target)
        return str(target / "bin" / "python")

    def _make(self, python: str, target: Path, lock: Lock) -> None:
        shutil.rmtree(target, ignore_errors=True)  # an interrupted one
        print(
            f"making the environment {target} from the project's {lock.where} (uv; reused next time)", file=sys.stderr
        )
        assert self.uv is not None  # check() found it
        made = subprocess.run(
            [self.uv, "venv", "--quiet", "--python", python, str(target)],
            capture_output=True,
            text=True,
            timeout=SYNC_TIMEOUT_S,
            check=False,
        )
        done = made if made.returncode != 0 else _sync(self.uv, python, target, lock, self._staged(lock), dry=False)
        if done.returncode != 0:
            shutil.rmtree(target, ignore_errors=True)
            raise EnvironmentMakeError(
                f"uv could not make {target} from the project's {lock.where}: {_last_line(done)}"
            )
        (target / COMPLETE).write_text(lock.where + "\n")

    def _staged(self, lock: Lock) -> Path:
        """A folder holding the lock and pyproject.toml (uv syncs a project folder), under the cache root."""
        folder = self.root / "locks" / lock.digest
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in (("uv.lock", lock.lock), ("pyproject.toml", lock.pyproject)):
            if not (folder / name).exists() or (folder / name).read_text() != text:
                (folder / name).write_text(text)
        return folder

    def _harness(self, target: Path) -> None:
        """serverbench (this running copy) importable in the environment, as in a venv made by hand: the
        launchers of serverside/ run in the server's interpreter.  The ``.pth`` names a folder holding only a link
        to the package, never the folder it is installed in (another interpreter's site-packages)."""
        package = Path(serverbench.__file__).resolve().parent
        folder = self.root / "harness" / hashlib.sha256(str(package).encode()).hexdigest()[:16]
        folder.mkdir(parents=True, exist_ok=True)
        link = folder / "serverbench"
        if not link.is_symlink() or link.resolve() != package:
            link.unlink(missing_ok=True)
            link.symlink_to(package, target_is_directory=True)
        for site in target.glob("lib/*/site-packages"):
            (site / "serverbench-harness.pth").write_text(f"{folder}\n")
