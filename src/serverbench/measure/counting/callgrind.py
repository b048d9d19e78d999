"""Valgrind's callgrind as an instruction counter: the command prefix, its controls, its output files.

A server runs under ``valgrind --tool=callgrind --instr-atstart=no``: nothing is counted while it
starts and warms up.  ``vgdb`` (Valgrind's gdbserver client) switches counting on for every
process of the server just before the measured window and dumps the counts just after it.  vgdb
reaches a process blocked in a system call through ptrace, so an idle server answers at once.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ...errors import MissingBinaryError, ServerbenchError

CONTROL_TIMEOUT_S = 30.0
_NAMED = re.compile(r"^(c?(?:ob|fn))=\((\d+)\)(?: (.*))?$")


class CountingError(ServerbenchError):
    """Valgrind could not count a server's instructions (vgdb could not reach it, no output, ...)."""


# Where valgrind's gdbserver and vgdb meet (FIFOs named by pid).  Fixed, not $TMPDIR: the server runs
# with a clean environment (so in /tmp) while the caller's TMPDIR may be its own (an xdist worker's).
VGDB_PREFIX = "/tmp/serverbench-vgdb-pipe"


def valgrind_command(out_dir: Path) -> tuple[str, ...]:
    """The prefix that runs a server's command under callgrind, children traced, counting off."""
    if valgrind_missing():
        raise MissingBinaryError("valgrind", "valgrind")
    return (
        shutil.which("valgrind"),
        "--tool=callgrind",
        "--trace-children=yes",
        "--instr-atstart=no",
        "--dump-instr=no",
        "--dump-line=no",
        "--vgdb=yes",
        "--trace-syscalls=yes",  # every system call into the log: the window's calls by name (measure/counting/systrace.py)
        f"--vgdb-prefix={VGDB_PREFIX}",
        f"--callgrind-out-file={out_dir}/callgrind.%p",
        f"--log-file={out_dir}/valgrind.%p.log",
    )


def remove_pipes(out_dir: Path) -> None:
    """Remove the vgdb pipes of every process that ran under valgrind into ``out_dir`` (its ``valgrind.<pid>.log``
    names it): valgrind removes them when a process exits, not when it is killed (a server that never
    became ready)."""
    for log in Path(out_dir).glob("valgrind.*.log"):
        pid = log.name.split(".")[1]
        for pipe in glob.glob(f"{VGDB_PREFIX}-*-{pid}-by-*"):
            Path(pipe).unlink(missing_ok=True)


def valgrind_missing() -> str | None:
    """Why instructions cannot be counted here (with the install command), or None."""
    if shutil.which("valgrind") is None or shutil.which("vgdb") is None:
        return "valgrind is not installed: apt-get install valgrind"
    return None


def valgrind_version() -> str:
    """``valgrind-3.19.0`` (or ``valgrind-missing``)."""
    try:
        return subprocess.run(["valgrind", "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "valgrind-missing"


# valgrind and vgdb each name their FIFOs by the user (LOGNAME, else USER) and host (HOST, else HOSTNAME) in their
# environment.  The counted server runs under `env -i` without them ("???"), so vgdb must not see them either:
# with USER set (any login shell, an unprivileged CI runner) it looked for other files and never reached a server.
VGDB_NAME_VARIABLES = ("LOGNAME", "USER", "HOST", "HOSTNAME")


def vgdb_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` without the variables valgrind names its FIFOs by (the counted server's environment lacks them)."""
    return {k: v for k, v in environ.items() if k not in VGDB_NAME_VARIABLES}


def control(pids: Iterable[int], *command: str) -> dict[int, str]:
    """Send a callgrind monitor command (``instrumentation on``, ``dump``) to each process, all at once: the server
    is quiet while it is switched (no request in flight), so the order does not matter, and one vgdb takes about
    0.2 s (a pre-fork server's three processes took 0.6 s one after the other).  ``-c`` between words starts
    another command in the same call.  Returns what each process answered."""
    calls = [
        (
            pid,
            subprocess.Popen(
                ["vgdb", f"--vgdb-prefix={VGDB_PREFIX}", f"--pid={pid}", "--max-invoke-ms=20", *command],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=vgdb_environment(os.environ),
            ),
        )
        for pid in pids
    ]
    deadline = time.monotonic() + CONTROL_TIMEOUT_S
    failed = None
    answers = {}
    for pid, call in calls:
        try:
            out, err = call.communicate(timeout=max(deadline - time.monotonic(), 0.0))
        except subprocess.TimeoutExpired:
            call.kill()
            call.communicate()
            failed = failed or CountingError(
                f"vgdb did not reach pid {pid} within {CONTROL_TIMEOUT_S:g} s to send {' '.join(command)!r}: "
                "it needs ptrace to wake a process blocked in a system call. Run as root, or allow ptrace "
                "(`sysctl kernel.yama.ptrace_scope=0`, or the container capability SYS_PTRACE)"
            )
            continue
        answers[pid] = out
        if call.returncode != 0:
            failed = failed or CountingError(
                f"vgdb {' '.join(command)!r} for pid {pid} failed (exit {call.returncode}): "
                f"{(err or out).strip()[-400:]}"
            )
    if failed is not None:  # raised once every vgdb has ended: none is left running
        raise failed
    return answers


@dataclass(frozen=True)
class Dump:
    """One callgrind dump of one process: its command, total instructions, and self cost per function."""

    pid: int
    command: str
    instructions: int
    functions: Mapping[tuple[str, str], int]  # (object file, function) -> instructions spent in it


def read_dump(path: Path) -> Dump:
    """Parse a callgrind output file (compressed names, ``calls=`` lines' inclusive costs skipped)."""
    names: dict[str, dict[str, str]] = {"ob": {}, "fn": {}}
    functions: Counter = Counter()
    pid, command, summary = 0, "", None
    obj = fn = ""
    skip_next = False
    with open(path, errors="replace") as f:
        for line in f:
            if skip_next:
                skip_next = False
                continue
            head = line[:1]
            if head.isdigit() or head in "+-*":
                parts = line.split()
                if len(parts) >= 2 and fn:
                    functions[(obj, fn)] += int(parts[1])
                continue
            line = line.rstrip("\n")
            named = _NAMED.match(line)
            if named:
                kind, ident, name = named.groups()
                table = names[kind.lstrip("c")]
                if name is not None:
                    table[ident] = name
                if kind == "ob":
                    obj = table.get(ident, "???")
                elif kind == "fn":
                    fn = table.get(ident, "???")
            elif line.startswith("calls="):
                skip_next = True
            elif line.startswith("pid:"):
                pid = int(line.split()[1])
            elif line.startswith("cmd:"):
                command = line[4:].strip()
            elif line.startswith("summary:"):
                summary = int(line.split()[1])
    if summary is None:
        raise CountingError(f"{path} has no 'summary:' line: not a complete callgrind dump")
    return Dump(pid, command, summary, dict(functions))


def window_dumps(out_dir: Path, pids: Iterable[int]) -> list[Dump]:
    """The dump each process wrote for the window (``callgrind.<pid>.1``: its first and only dump)."""
    dumps = []
    for pid in pids:
        path = Path(out_dir) / f"callgrind.{pid}.1"
        if not path.exists():
            raise CountingError(
                f"process {pid} wrote no dump ({path} is missing): it exited during the "
                f"window or is not running under valgrind; see {out_dir}/valgrind.{pid}.log"
            )
        dumps.append(read_dump(path))
    return dumps
