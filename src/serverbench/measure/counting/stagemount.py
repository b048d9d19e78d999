"""Every count's server sees its stage at one path, however many counts run at once.

Two counts at once hold two stage folders (:func:`.fixedpaths.claimed_stage`: ``/tmp/serverbench-paths-00`` and
``-01``), and the one character between their names moved instructions by 0.22% (gunicorn-sync-w2) and 0.35%
(gevent-pywsgi-nodelay): the paths' characters decide their hashes.  So a count holding another slot starts its server,
and the native compile before it, in a mount namespace of its own, where its stage folder is bind-mounted onto the
shared path (:data:`.fixedpaths.SEEN`); the folder stays where it is, and the harness reads and empties it there.

- As root: ``unshare --mount --propagation private``, then a shell mounts, enters the working folder and execs.
- As another user a user namespace must own the mount namespace, and a process of a non-zero uid loses its
  capabilities at execve (``--map-current-user``'s shell cannot mount).  Mapped to root first (``--map-root-user``), the
  shell mounts, then execs ``unshare --user --map-user=UID --map-group=GID`` (util-linux 2.38), a nested namespace
  mapping the user's own ids back: the server sees its own uid and gid; its supplementary groups and other users'
  files read as the overflow id (65534).
- Where neither can be made (a container's seccomp profile, a kernel or AppArmor refusing unprivileged user
  namespaces, util-linux older than 2.38), the count keeps the path of its own slot, as before, and its record says
  so once (``stage_note``).

Each step execs the next in the same process (unshare without ``--fork``, the shell's ``exec``): the pid started is
valgrind's and the server's, as readiness and stop-by-pid expect, and nothing of it runs under valgrind.  The shared
path is a folder no count removes (:func:`.fixedpaths.claimed_stage` empties a slot's folder, keeps it): removing a
mount point in another namespace detaches the mount there (Linux 3.18 on), so something removing ``-00`` beside a
count (a serverbench from before this, a /tmp cleaner) would take the stage from under its server; :func:`check_seen`
finds that after the window.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .callgrind import CountingError

# $1 the stage folder, $2 the path the server sees it at, $3 the folder to start in (under $2), then the command.
MOUNT_SCRIPT = 'mkdir -p "$2" && mount --bind "$1" "$2" && cd "$3" && shift 3 && exec "$@"'
PROBE_TIMEOUT_S = 30


@dataclass(frozen=True)
class Way:
    """One way into a mount namespace of a count's own: the command before the shell that mounts, and the one the shell
    execs after mounting, before the program's own."""

    name: str
    before: tuple[str, ...]
    after: tuple[str, ...] = ()


def ways(unshare: str, uid: int, gid: int) -> tuple[Way, ...]:
    """The ways to try, in order, for a process of ``uid`` and ``gid``: a mount namespace alone (root only), then one
    owned by a user namespace of its own, the ids mapped back."""
    private = ("--mount", "--propagation", "private", "--")
    user = Way(
        "user and mount namespace",
        (unshare, "--user", "--map-root-user", *private),
        (unshare, "--user", f"--map-user={uid}", f"--map-group={gid}", "--"),
    )
    return ((Way("mount namespace", (unshare, *private)),) if uid == 0 else ()) + (user,)


def entering(way: Way, stage: Path, seen: Path, start_in: Path) -> tuple[str, ...]:
    """The command line before a program's own that starts it through ``way`` with ``stage`` mounted on ``seen``, in
    ``start_in`` (a folder under ``seen``)."""
    sh = shutil.which("sh") or "/bin/sh"
    return (*way.before, sh, "-c", MOUNT_SCRIPT, "sh", str(stage), str(seen), str(start_in), *way.after)


@dataclass(frozen=True)
class View:
    """Where a count's server sees its stage: at ``seen``, through ``enter`` (the command line before its own; empty:
    it starts where it is), and ``note``, why it does not see the shared path (empty: it does)."""

    seen: Path
    enter: tuple[str, ...] = ()
    note: str = ""


def view(stage: Path, shared: Path, start_in: str, way: Way | str) -> View:
    """How the server of a count holding ``stage`` sees it: the stage itself when it is the shared path; else the shared
    path through ``way`` (``start_in`` under it); else, ``way`` being why no namespace could be made, its own path,
    noted."""
    if stage == shared:
        return View(stage)
    if isinstance(way, str):
        return View(
            stage,
            note=f"counted through its own stage, not {shared}: no mount namespace could be made ({way}); two counts "
            "at once can read apart by their stages' names (docs/lab/cost.md, how far counts fall apart)",
        )
    return View(shared, entering(way, stage, shared, shared / start_in))


@functools.cache
def available() -> Way | str:
    """The first of :func:`ways` that mounts a folder on another for a program that then sees its own uid and gid, tried
    once; else why none did (each way's last line of error)."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return "util-linux's unshare is not installed"
    uid, gid = os.getuid(), os.getgid()
    failed = []
    with tempfile.TemporaryDirectory(prefix="serverbench-stagemount-") as top:
        stage, seen = Path(top) / "stage", Path(top) / "seen"
        stage.mkdir()
        (stage / "marker").write_text("")
        for way in ways(unshare, uid, gid):
            check = f'test -e marker && test "$(id -u):$(id -g)" = "{uid}:{gid}"'
            try:
                probe = subprocess.run(
                    [*entering(way, stage, seen, seen), "sh", "-c", check],
                    capture_output=True,
                    text=True,
                    timeout=PROBE_TIMEOUT_S,
                    check=False,
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                failed.append(f"{way.name}: {exc}")
                continue
            if probe.returncode == 0:
                return way
            last = (probe.stderr.strip().splitlines() or [f"exit {probe.returncode}"])[-1]
            failed.append(f"{way.name}: {last}")
    return "; ".join(failed)


def check_seen(pid: int, stage: Path, seen: Path) -> None:
    """Raise :class:`CountingError` unless process ``pid`` sees ``stage`` at ``seen`` (through its own mount namespace,
    ``/proc/<pid>/root``): the mount goes when its mount point is removed outside."""
    try:
        inside, real = os.stat(f"/proc/{pid}/root{seen}"), os.stat(stage)
        same = (inside.st_dev, inside.st_ino) == (real.st_dev, real.st_ino)
    except OSError:
        same = False
    if not same:
        raise CountingError(
            f"the counted server (pid {pid}) no longer sees its stage {stage} at {seen}: the folder {seen} was removed "
            "while it counted (by a serverbench from before counts shared that path, or a /tmp cleaner), which takes "
            "the mount with it; count again"
        )
