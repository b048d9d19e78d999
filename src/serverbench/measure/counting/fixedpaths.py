"""The paths a counted server sees, of one length wherever the checkout is.

A server's paths end up in its heap: ``sys.path``, every module's ``__file__`` and code objects'
``co_filename``, the import system's caches.  Their lengths move where every later object lands, and
CPython's hot paths depend on addresses: the type attribute cache is indexed by the address of the
attribute's name, so where the names land decides which lookups miss it and walk the MRO's dicts
(``find_name_in_mro``, ``_Py_dict_lookup``).  Two clones of one commit counted 0.2-0.5% apart for that
alone (gunicorn sync, aiohttp, /json).

So the counted server reaches its interpreter's virtual environment and the app's folder through a
stage of fixed length, ``/tmp/serverbench-paths-00`` (:data:`SEEN`), built of links.  A count holds the lowest free
slot's folder, ``-00`` when counts run one at a time; a count beside another holds ``-01`` and its server sees that
folder at ``-00`` all the same, in a mount namespace of its own (:mod:`.stagemount`).  The stage is built naming the
path the server sees:

- ``<stage>/v`` is a view of the environment: its ``bin/python`` gives the interpreter a ``sys.prefix``
  under the stage, its site-packages links to each entry of the real one, and a ``.pth`` file that
  names a folder by path (an editable install's ``src``: a path of the checkout's) is rewritten to
  name ``<stage>/p0``, a link to that folder;
- ``<stage>/a`` links to each entry of the app's folder and is the server's working directory
  (``python -m`` puts ``os.getcwd()``, a resolved path, first on ``sys.path``).
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from . import stagemount
from .callgrind import CountingError
from .stagemount import View

STAGE_PARENT = "/tmp"  # not $TMPDIR: an xdist worker's or a user's temporary folder has a length of its own
STAGE_PREFIX = "serverbench-paths-"
SLOTS = 100  # stages that can be held at once (two digits: one length)
# The stage path every count's server sees, where a namespace can be made (the one counts in turn have always seen).
SEEN = Path(STAGE_PARENT) / f"{STAGE_PREFIX}00"
APP_FOLDER = "a"  # under the stage: the app folder, the server's working directory


@dataclass(frozen=True)
class Staged:
    """The interpreter and app folder to start the counted server with, both under the stage as the server sees it
    (``seen.seen``), and how to start a process that sees them there (:attr:`enter`, in :attr:`start_dir`)."""

    python: str
    apps_dir: Path
    folders: tuple[str, ...]  # the environment's .pth folders (an editable install's src), as the stage names them
    stage: Path  # the folder the stage's links are in
    seen: View

    @property
    def enter(self) -> tuple[str, ...]:
        """The command line before a process's own that puts it where it sees the stage (empty: it is there)."""
        return self.seen.enter

    @property
    def start_dir(self) -> Path:
        """The folder a process is started in: the app folder, or where it is before entering (it changes to the
        app folder once in)."""
        return self.stage / APP_FOLDER if self.seen.enter else self.apps_dir

    @property
    def note(self) -> str:
        return self.seen.note

    @property
    def mark(self) -> str:
        """What every ``.pyc`` the server reads should hold (measure/serving/bytecode.py): the path it sees its stage
        at; where it sees its own slot's (no namespace), any slot's prefix, so that counts beside it do not compile
        each other's files again."""
        return STAGE_PREFIX if self.seen.note else f"{self.seen.seen}/"

    def as_seen(self, path: str) -> str:
        """``path``, a path under the stage's folder, as the server names it."""
        return str(self.seen.seen / Path(path).relative_to(self.stage))

    def check(self, pid: int) -> None:
        """Raise CountingError unless the server ``pid`` still sees its stage where it started seeing it."""
        if self.seen.enter:
            stagemount.check_seen(pid, self.stage, self.seen.seen)


def virtual_environment(python: str) -> Path | None:
    """The virtual environment ``python`` belongs to (its ``pyvenv.cfg`` one folder up), or None: an
    interpreter outside one has a path of the machine's, not the checkout's."""
    root = Path(python).parent.parent
    return root if (root / "pyvenv.cfg").is_file() else None


def named_folder(line: str) -> str | None:
    """The folder a ``.pth`` line adds to ``sys.path`` by absolute path, or None (code, a comment, a relative
    path, or a folder that does not exist: ``site`` skips it too)."""
    line = line.strip()
    if not line or line.startswith(("#", "import ", "import\t")) or not os.path.isabs(line):
        return None
    return line if os.path.isdir(line) else None


def link_entries(source: Path, into: Path, skip: tuple[str, ...] = ()) -> None:
    """``into`` (created) holds a link to each entry of ``source`` but those named in ``skip``."""
    into.mkdir(parents=True)
    for entry in sorted(os.listdir(source)):
        if entry not in skip:
            (into / entry).symlink_to(source / entry)


def rewrite_pth(pth: Path, copy: Path, stage: Path, folders: list[str]) -> None:
    """``copy`` is ``pth`` with each folder it names by path replaced by ``<stage>/p<n>`` (appended to ``folders``), the
    stage as the server sees it."""
    lines = pth.read_text(errors="replace").splitlines()
    if not any(named_folder(line) for line in lines):
        return
    rewritten = []
    for line in lines:
        if named_folder(line) is not None:
            folders.append(named_folder(line))
            line = str(stage / f"p{len(folders) - 1}")
        rewritten.append(line)
    copy.unlink()
    copy.write_text("\n".join(rewritten) + "\n")


def restage_script(script: Path, venv: Path, view: Path, seen: Path) -> None:
    """A console script whose ``#!`` line names the environment's interpreter (pyuwsgi's ``uwsgi``) runs, in the
    view (``seen`` as the server sees it), with the view's: the kernel starts the interpreter the line names, and that
    path becomes the server's ``sys.executable``, ``sys.prefix`` and site-packages."""
    if script.is_symlink() or not script.is_file():
        return
    with open(script, "rb") as f:
        first = f.readline()
    if not first.startswith(b"#!"):
        return
    interpreter = Path(first[2:].decode(errors="replace").strip().split(" ")[0])
    if interpreter.parent.resolve() != (venv / "bin").resolve():
        return
    copy = view / "bin" / script.name
    copy.unlink()
    copy.write_bytes(f"#!{seen / 'bin' / interpreter.name}\n".encode() + script.read_bytes()[len(first) :])
    copy.chmod(0o755)


def environment_view(venv: Path, stage: Path, seen: Path | None = None) -> tuple[Path, tuple[str, ...]]:
    """``<stage>/v``: ``venv`` seen through links, its ``.pth`` files' folders renamed under the stage as the server sees
    it (``seen``, default ``stage``), and returned so named."""
    seen = stage if seen is None else seen
    view = stage / "v"
    view.mkdir()
    for entry in sorted(os.listdir(venv)):
        if entry not in ("lib", "bin"):  # lib64 -> lib stays relative: a link into the view
            (view / entry).symlink_to(os.readlink(venv / entry) if (venv / entry).is_symlink() else venv / entry)
    link_entries(venv / "bin", view / "bin")
    for script in sorted((venv / "bin").iterdir()):
        restage_script(script, venv, view, seen / "v")
    folders: list[str] = []
    for lib in sorted((venv / "lib").iterdir()):
        link_entries(lib, view / "lib" / lib.name, skip=("site-packages",))
        site = lib / "site-packages"
        if site.is_dir():
            link_entries(site, view / "lib" / lib.name / "site-packages")
            for pth in sorted(site.glob("*.pth")):
                rewrite_pth(pth, view / "lib" / lib.name / "site-packages" / pth.name, seen, folders)
    for n, folder in enumerate(folders):
        (stage / f"p{n}").symlink_to(folder, target_is_directory=True)
    return seen / "v", tuple(str(seen / f"p{n}") for n in range(len(folders)))


@contextmanager
def claimed_stage(parent: str = STAGE_PARENT, slots: int = SLOTS) -> Iterator[Path]:
    """The lowest free stage folder, ``<parent>/serverbench-paths-00`` and on, held (an exclusive lock on its lock
    file) until exit, empty at the start and at exit.  One name whenever counts run one at a time, not a random one:
    the paths' characters decide their hashes, and a counted pair of runs should differ in nothing but the code.  A
    lock dies with its process, so a folder a killed count left behind is taken over.  The folder itself stays: another
    count's server may see its own stage mounted on it (:mod:`.stagemount`), and removing it would take the mount."""
    for slot in range(slots):
        stage = Path(parent) / f"{STAGE_PREFIX}{slot:02d}"
        try:
            lock = open(f"{stage}.lock", "a")
        except OSError:  # another user's
            continue
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            continue
        try:
            emptied(stage)
            yield stage
            return
        finally:
            emptied(stage)
            lock.close()
    raise CountingError(
        f"no free stage folder among {parent}/{STAGE_PREFIX}00..{slots - 1:02d}: {slots} counts at once?"
    )


def emptied(stage: Path) -> None:
    """``stage`` as an empty folder: what is in it removed (the links, not what they point to), the folder kept."""
    if stage.is_symlink() or (stage.exists() and not stage.is_dir()):
        stage.unlink()
    stage.mkdir(exist_ok=True)
    for entry in stage.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


def seen_view(stage: Path, shared: Path = SEEN) -> View:
    """How the server of the count holding ``stage`` sees it (:func:`.stagemount.view`); a namespace is tried only for
    a stage that is not the shared path."""
    return stagemount.view(stage, shared, APP_FOLDER, stagemount.available() if stage != shared else "")


@contextmanager
def fixed_paths(python: str, apps_dir: Path) -> Iterator[Staged]:
    """A stage of fixed length (:func:`claimed_stage`) for ``python``'s environment and ``apps_dir``, as the server
    will see it (:func:`seen_view`), emptied on exit (the links only: what they point to stays)."""
    with claimed_stage() as stage:
        seen = seen_view(stage)
        venv = virtual_environment(python)
        folders: tuple[str, ...] = ()
        if venv is not None:
            view_python, folders = environment_view(venv.resolve(), stage, seen.seen)
            python = str(view_python / "bin" / Path(python).name)
        link_entries(Path(apps_dir).resolve(), stage / APP_FOLDER)
        yield Staged(python, seen.seen / APP_FOLDER, folders, stage, seen)
