"""A session handed over to the server host: serverbench run from another machine (a laptop, a CI runner).

When the inventory's server host is not this machine, ``pytest -m perf``, ``pytest -m cost`` and ``serverbench gate``
run the same command there, where the server runs, is sampled and is counted:

1. every host is checked from here, as the session would check it there (a problem stops it before anything runs);
2. the server host's ``checkout`` (default: this project's path) gets this working tree's files, the ones git lists
   (tracked, and untracked ones it does not ignore), unless it has them already (one digest of their contents, taken
   on both sides) or is this very folder (a shared filesystem);
3. the command runs there on a tether, in that checkout, pinned to the server host's cores, with an inventory written
   for it: the same hosts, their keys through an ssh-agent of this run that its session forwards (no key is copied),
   their host keys copied; its output is printed here as it comes;
4. the files it wrote in the checkout (results, reports, saved baselines) are brought back here;
5. Ctrl-C or SIGTERM here sends SIGTERM there, which the session takes as Ctrl-C (it stops its servers and its load
   hosts' processes); SIGKILL here ends the SSH session, and the tether stops it.

The exit status is the command's there.  No agent of our own: OpenSSH, ssh-agent, tar and git.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import shlex
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import BinaryIO

from ..errors import HostError
from ..processes.executors import guarded
from ..processes.stopping import sigterm_interrupts
from . import ssh
from .check import check, refusal
from .connected import local_addresses
from .inventory import CONTROLLER_VAR, ENV_VAR, Host, Inventory, load, render
from .ssh import Connections, remote_command
from .tether import MARK
from .tree import digest, listed

STOP_GRACE_S = 120.0  # the session there stops its servers and its load hosts' processes before it exits
SEND_TIMEOUT_S = 600.0
# Written in the checkout, never brought back: environments, caches, git's own files.
NOT_BROUGHT = (".git", ".venv", "venv", "__pycache__", ".pytest_cache", ".ruff_cache", ".mypy_cache", ".tox", "mutants")


def apart(inventory: Inventory, addresses: set[str] | None = None) -> bool:
    """Whether the inventory's server host is another machine than this one (its address none of ours)."""
    return inventory.server.address not in (addresses if addresses is not None else local_addresses())


def if_apart(
    path: str | os.PathLike | None, command: Callable[[Host, str], Sequence[str]], cwd: Path | None = None
) -> int | None:
    """:func:`hand_over` when the inventory at ``path`` names another machine as the server host: the command's exit
    status there; None when there is no inventory or this machine is the server host (the session runs here)."""
    if not path:
        return None
    inventory = load(path)
    return hand_over(inventory, command, cwd) if apart(inventory) else None


def counted(markexpr: str | None) -> bool:
    """Whether a pytest selection (its ``-m`` expression) may select counted tests (``cost``)."""
    words = (markexpr or "").replace("(", " ").replace(")", " ").split()
    return any(w == "cost" and (i == 0 or words[i - 1] != "not") for i, w in enumerate(words))


def needed(markexpr: str | None, user_app: bool) -> bool:
    """Whether a pytest session apart from the server host is handed over to it: one that may count (a tracer runs
    the server there), or one serving a user's own app (``perf_app``: its setup command and its reset run where its
    server runs, beside its data).  A perf session of the reference apps is not: it runs apart (docs/hosts.md)."""
    return counted(markexpr) or user_app


def without_hosts_flag(args: Sequence[str]) -> list[str]:
    """``args`` without ``--perf-hosts FILE`` (or ``--perf-hosts=FILE``): the session there is given its own."""
    kept, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg == "--perf-hosts":
            skip = True
        elif not arg.startswith("--perf-hosts="):
            kept.append(arg)
    return kept


def project_root(cwd: Path) -> Path:
    """The git checkout ``cwd`` is in (the folder handed over), or ``cwd`` itself outside one."""
    done = subprocess.run(["git", "-C", str(cwd), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    return Path(done.stdout.strip()).resolve() if done.returncode == 0 and done.stdout.strip() else cwd


def hand_over(
    inventory: Inventory,
    command: Callable[[Host, str], Sequence[str]],
    cwd: Path | None = None,
    out: BinaryIO | None = None,
    err: BinaryIO | None = None,
) -> int:
    """Run ``command(server, inventory_there)`` on the server host in its checkout (the steps above); its exit status.
    A HostError or ConfigError names the host and the fix."""
    cwd = (cwd or Path.cwd()).resolve()
    root = project_root(cwd)
    server = inventory.server
    checkout = server.checkout or str(root)
    there = posixpath.normpath(posixpath.join(checkout, cwd.relative_to(root).as_posix()))
    say = _Say(err or sys.stderr.buffer)
    with tempfile.TemporaryDirectory(prefix="sb-handover-") as local:
        agent = Agent.start(Path(local), inventory)
        connections = Connections(agent=agent.socket if agent else os.environ.get("SSH_AUTH_SOCK") or None)
        folder = None
        try:
            _require_ready(inventory, connections)
            folder = _made_folder(connections, server)
            shared = _same_folder(connections, server, root, checkout)
            if not shared:
                _send(connections, server, root, checkout, say)
            written = _inventory_there(connections, server, folder, inventory)
            say(f"the session runs on {server.name} in {there}; this machine is its controller")
            env = {ENV_VAR: written, CONTROLLER_VAR: socket.gethostname()}
            code = _run_there(connections, server, command(server, written), there, env, local, out, err, say)
            if not shared:
                _bring_back(connections, server, root, checkout, folder, say)
            return code
        finally:
            if folder is not None:
                connections.spawn(server, f"rm -rf {shlex.quote(folder)}")
            connections.close()
            if agent is not None:
                agent.stop()


class _Say:
    """serverbench's own lines about the handover, on the error stream."""

    def __init__(self, stream: BinaryIO):
        self.stream = stream

    def __call__(self, line: str) -> None:
        self.stream.write(f"serverbench hosts: {line}\n".encode())
        self.stream.flush()


def _require_ready(inventory: Inventory, connections: Connections) -> None:
    refused = refusal(check(inventory, connections))
    if refused:
        raise HostError(f"{inventory.path}: {refused}. `serverbench hosts check {inventory.path}` tells more")


def _made_folder(connections: Connections, server: Host) -> str:
    """A folder of this handover's on the server host, with the mark its written files are newer than."""
    done = connections.run(server, 'd=$(mktemp -d /tmp/sb-handover-XXXXXX) && touch "$d/started" && echo "$d"')
    folder = done.stdout.decode().strip()
    if done.returncode != 0 or not folder.startswith("/tmp/sb-handover-"):
        raise HostError(
            f"the server host {server.describe()} cannot make a folder in /tmp "
            f"({done.stderr.decode(errors='replace').strip()[-200:]}); check its disk and /tmp's permissions"
        )
    return folder


def _same_folder(connections: Connections, server: Host, root: Path, checkout: str) -> bool:
    """Whether the checkout there is this very folder (a file made here is seen there): nothing is sent or brought."""
    try:
        fd, mark = tempfile.mkstemp(dir=root, prefix=".serverbench-handover-")
    except OSError as exc:
        raise HostError(
            f"cannot write in {root} ({exc.strerror or exc}), where a mark tells whether {server.name}'s checkout is "
            "this very folder: run from a folder you can write (the session's results come back into it)"
        ) from None
    os.close(fd)
    try:
        done = connections.run(server, f"test -e {shlex.quote(posixpath.join(checkout, Path(mark).name))}")
        return done.returncode == 0
    finally:
        os.unlink(mark)


def _send(connections: Connections, server: Host, root: Path, checkout: str, say: _Say) -> None:
    """This working tree's files into the checkout there, unless it holds them already."""
    paths = listed(root)
    names = b"\0".join(p.encode(errors="surrogateescape") for p in paths)
    asked = connections.run(
        server, remote_command([server.python, "-m", "serverbench.hosts.tree", checkout]), input=names
    )
    if asked.returncode == 0 and asked.stdout.decode().strip() == digest(root, paths):
        say(f"{server.name}:{checkout} holds this working tree's {len(paths)} files")
        return
    q = shlex.quote(checkout)
    tar = subprocess.Popen(
        guarded(["tar", "-C", str(root), "--null", "-T", "-", "-cf", "-"]),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    receive = subprocess.Popen(
        guarded(connections.argv(server, f"mkdir -p {q} && tar -C {q} -xf -")),
        stdin=tar.stdout,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    tar.stdout.close()
    tar.stdin.write(names)
    tar.stdin.close()
    try:
        _, said = receive.communicate(timeout=SEND_TIMEOUT_S)
        tar.wait(30)
    except subprocess.TimeoutExpired:
        ssh.end(receive)
        ssh.end(tar)
        raise HostError(f"sending the project to {server.describe()} took over {SEND_TIMEOUT_S:g} s") from None
    if receive.returncode != 0 or tar.returncode != 0:
        said = (said or b"").decode(errors="replace") + tar.stderr.read().decode(errors="replace")
        raise HostError(
            f"cannot send the project to {server.describe()}:{checkout} ({' '.join(said.split())[-300:]}); "
            "check that the folder can be written there, or set checkout in the inventory to one that can"
        )
    say(f"sent this working tree's {len(paths)} files to {server.name}:{checkout}")


def _inventory_there(connections: Connections, server: Host, folder: str, inventory: Inventory) -> str:
    """The inventory the session there is given: the same hosts, no key file (the forwarded agent has the keys), the
    host keys they name copied into one file there.  Its path there."""
    known = [Path(h.known_hosts).read_text() for h in inventory.hosts if h.known_hosts]
    known_there = posixpath.join(folder, "known_hosts") if known else None
    hosts = tuple(replace(h, identity=None, known_hosts=known_there) for h in inventory.hosts)
    written = posixpath.join(folder, "hosts.toml")
    files = [(written, render(Inventory(hosts, written)))]
    files += [(known_there, "".join(k if k.endswith("\n") else k + "\n" for k in known))] if known_there else []
    for path, text in files:
        done = connections.run(server, f"cat > {shlex.quote(path)}", input=text.encode())
        if done.returncode != 0:
            raise HostError(f"cannot write {path} on {server.describe()}: {done.stderr.decode(errors='replace')}")
    return written


def _run_there(
    connections: Connections,
    server: Host,
    argv: Sequence[str],
    cwd: str,
    env: Mapping[str, str],
    local: str,
    out: BinaryIO | None,
    err: BinaryIO | None,
    say: _Say,
) -> int:
    """``argv`` on the server host on a tether, its output copied here as it comes; its exit status."""
    tethered = ssh.start(connections, server, argv, local, env=env, cwd=cwd)
    copying = threading.Thread(
        target=_copy_output, args=(tethered, out or sys.stdout.buffer, err or sys.stderr.buffer), daemon=True
    )
    copying.start()
    restore = sigterm_interrupts()
    interrupted = False
    try:
        code = tethered.wait()
    except KeyboardInterrupt:
        interrupted = True
        say(f"interrupted: stopping the session on {server.name} (it stops its servers and load hosts' processes)")
        code = ssh.stop(connections, tethered, grace_s=STOP_GRACE_S)
    finally:
        restore()
        copying.join(10)
    if code is None and tethered.lost_at is not None:
        raise HostError(
            f"the server host {server.describe()} was lost {tethered.lost_at:.1f} s into the session; its tether "
            "stops what it ran once its sshd notices: check the host and the link, then run again"
        )
    if code is None or (interrupted and code == 0):
        return 130 if interrupted else 1
    return code


def _copy_output(tethered: ssh.Tethered, out: BinaryIO, err: BinaryIO) -> None:
    """The tethered command's output and errors, copied as they grow (the tether's own lines left out)."""
    read = {tethered.out: 0, tethered.err: 0}
    partial = b""
    while True:
        ended = not tethered.running()
        for path in read:
            try:
                with open(path, "rb") as f:
                    f.seek(read[path])
                    chunk = f.read()
            except OSError:
                chunk = b""
            read[path] += len(chunk)
            if path == tethered.out and chunk:
                out.write(chunk)
                out.flush()
            elif chunk or (ended and partial):
                lines = (partial + chunk).split(b"\n")
                partial = b"" if ended else lines.pop()
                shown = [line for line in lines if line and not line.startswith(MARK.encode())]
                if shown:
                    err.write(b"\n".join(shown) + b"\n")
                    err.flush()
        if ended:
            return
        time.sleep(0.1)


def _bring_back(connections: Connections, server: Host, root: Path, checkout: str, folder: str, say: _Say) -> None:
    """The files the session wrote in the checkout there, into this folder."""
    pruned = " -o ".join(f"-name {shlex.quote(n)}" for n in NOT_BROUGHT)
    mark = shlex.quote(posixpath.join(folder, "started"))
    listing = f"cd {shlex.quote(checkout)} && find . \\( {pruned} \\) -prune -o -type f -newer {mark} -print0"
    done = connections.run(server, listing, timeout=120)
    paths = [p for p in done.stdout.decode(errors="surrogateescape").split("\0") if p]
    if done.returncode != 0 or not paths:
        return
    sent = connections.run(
        server,
        f"cd {shlex.quote(checkout)} && tar --null -T - -cf -",
        timeout=SEND_TIMEOUT_S,
        input=b"\0".join(p.encode(errors="surrogateescape") for p in paths),
    )
    unpacked = subprocess.run(["tar", "-C", str(root), "-xf", "-"], input=sent.stdout, capture_output=True)
    if sent.returncode != 0 or unpacked.returncode != 0:
        said = sent.stderr.decode(errors="replace") + unpacked.stderr.decode(errors="replace")
        raise HostError(f"cannot bring the session's files back from {server.describe()}: {' '.join(said.split())}")
    names = [p.removeprefix("./") for p in sorted(paths)]
    shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    say(f"brought back from {server.name}: {shown}")


class Agent:
    """An ssh-agent of this handover's holding the inventory's key files, its socket forwarded to the server host's
    session (which reaches the other hosts with those keys; no key file leaves this machine).  Stopped by its pid."""

    def __init__(self, process: subprocess.Popen, socket: str):
        self.process, self.socket = process, socket

    @classmethod
    def start(cls, folder: Path, inventory: Inventory) -> Agent | None:
        """An agent with every key file the inventory names, or None when it names none (the caller's agent, if
        any, is forwarded instead)."""
        keys = sorted({h.identity for h in inventory.hosts if h.identity})
        if not keys:
            return None
        path = str(folder / "agent.sock")
        process = subprocess.Popen(
            guarded(["ssh-agent", "-D", "-a", path]),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        agent = cls(process, path)
        deadline = time.monotonic() + 10
        while not os.path.exists(path):
            if process.poll() is not None or time.monotonic() > deadline:
                agent.stop()
                raise HostError("ssh-agent did not start here: apt-get install openssh-client")
            time.sleep(0.02)
        for key in keys:
            added = subprocess.run(
                ["ssh-add", "-q", key],
                env={**os.environ, "SSH_AUTH_SOCK": path},
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
            )
            if added.returncode != 0:
                agent.stop()
                raise HostError(
                    f"cannot add the key {key} to an ssh-agent ({added.stderr.strip()[-200:]}); a key with a "
                    "passphrase must be in your own agent: leave identity out of the inventory and run ssh-add first"
                )
        return agent

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            ssh.end(self.process)
