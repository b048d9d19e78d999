"""A host's processes as one round trip reads them: every ``/proc/PID/stat`` there, and who asked.

The backends host's services and a server on the server host are read the same way (no agent of ours runs there):
every ``/proc/PID/stat`` of the host, printed over the host's master connection.  A server's sampler keeps one shell
open there (:data:`LOOP`): each line it is sent is one sample, answered with the shell's pid and its parent's (the
sshd carrying this controller's connection), every process's stat line and an end mark; a shell started per sample
would run the login shell's start-up files there each time (a pyenv init took more CPU than the sample).  Pure: what
is parsed here is the text those commands printed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

# One shell kept open on the host: a line in, one sample out (who answers, every process's stat, the end mark).
LOOP = (
    'exec sh -c \'while read -r _; do echo "asked $$ $PPID"; grep ^cpu /proc/stat; '
    "cat /proc/[0-9]*/stat 2>/dev/null; echo .; done'"
)
# The fields of a /proc/stat cpu line that are busy time (as measure.host.hostcpu counts it), and the stolen one.
BUSY = (0, 1, 2, 5, 6)  # user, nice, system, irq, softirq
STEAL = 7
END = b"\n.\n"  # the end of one sample's answer
# The host's clock ticks per second and page size, asked once.
UNITS = "getconf CLK_TCK; getconf PAGESIZE"


@dataclass(frozen=True)
class Stat:
    """One process as its stat line gives it: CPU in clock ticks (its own, and its waited-for children's), its
    start (ticks after boot: with the pid, who it is) and its resident pages."""

    pid: int
    ppid: int
    pgrp: int
    ticks: int
    children_ticks: int
    start: int
    rss_pages: int

    @property
    def key(self) -> tuple[int, int]:
        """The process itself (a pid the kernel gave again later is another process)."""
        return self.pid, self.start


@dataclass(frozen=True)
class Sampled:
    """What one round trip read: the asking shell's pid and its parent's (our sshd there), every process, and each
    core's busy and stolen clock ticks so far (``"cpu"``: all of them; ``"cpu0"``...: each)."""

    shell: int | None
    sshd: int | None
    stats: dict[int, Stat]
    cpus: dict[str, tuple[int, int]] = field(default_factory=dict)


def parse_stat(line: str) -> Stat | None:
    """One ``/proc/PID/stat`` line (its command name may hold spaces and parentheses); None when it is not one."""
    head, paren, rest = line.rpartition(")")
    pid, _, _ = head.partition(" (")
    fields = rest.split()
    if not paren or len(fields) < 13 or not pid.strip().isdigit():
        return None
    # After the name: state, ppid, pgrp, session, tty, tpgid, flags, 4 fault counts, utime, stime, cutime, cstime,
    # priority, nice, threads, itrealvalue, starttime, vsize, rss (a short line: a kernel's or a test's, 0 for those).
    try:
        n = [int(f) for f in fields[1:22]] + [0] * max(0, 22 - len(fields))
    except ValueError:
        return None
    return Stat(int(pid), n[0], n[1], n[10] + n[11], n[12] + n[13], n[18], n[20])


def parse(text: str) -> Sampled:
    """One answer of :data:`LOOP` (its end mark left out)."""
    shell = sshd = None
    stats: dict[int, Stat] = {}
    cpus: dict[str, tuple[int, int]] = {}
    for line in text.splitlines():
        if line.startswith("asked "):
            words = line.split()
            if len(words) == 3 and words[1].isdigit() and words[2].isdigit():
                shell, sshd = int(words[1]), int(words[2])
            continue
        if line.startswith("cpu"):
            name, *numbers = line.split()
            if len(numbers) > STEAL and all(n.isdigit() for n in numbers):
                cpus[name] = (sum(int(numbers[i]) for i in BUSY), int(numbers[STEAL]))
            continue
        stat = parse_stat(line)
        if stat is not None:
            stats[stat.pid] = stat
    return Sampled(shell, sshd, stats, cpus)


def units(text: str) -> tuple[int, int]:
    """(clock ticks per second, page size) from the output of :data:`UNITS`; Linux's usual 100 and 4096 where the
    host did not say."""
    words = text.split()
    tick = int(words[0]) if len(words) > 0 and words[0].isdigit() and int(words[0]) > 0 else 100
    page = int(words[1]) if len(words) > 1 and words[1].isdigit() and int(words[1]) > 0 else 4096
    return tick, page


def group_cpu_s(stats: Iterable[Stat], groups: set[int], tick: int) -> dict[int, float]:
    """CPU seconds (user + system) of every process in each of ``groups`` (``tick``: the host's clock ticks per
    second).  A group with no process listed is left out."""
    used: dict[int, float] = {}
    for stat in stats:
        if stat.pgrp in groups:
            used[stat.pgrp] = used.get(stat.pgrp, 0.0) + stat.ticks / tick
    return used
