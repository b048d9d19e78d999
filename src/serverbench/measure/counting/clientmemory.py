"""The memory a counted server's program holds, apart from valgrind's own, from one process's address space.

Under valgrind the program and valgrind share one address space, and valgrind's part grows as it
translates and counts (callgrind's tables grow with the code the window runs), so the process's RSS or
PSS says little about the program.  Valgrind's address-space manager knows whose each mapping is: its
segment list (the gdbserver command ``v.info memory aspacemgr``, written to the process's standard error,
so into the server's log, each line led by ``--<pid>:0: aspacem``) writes the program's (the client's)
anonymous mappings ``anon`` and valgrind's own ``ANON``.  The resident size of the program's anonymous
mappings (``Rss`` of the matching ``/proc/<pid>/smaps`` areas: its heap, its malloc arenas and
pymalloc's arenas, its stacks) read when the window opens and again when it ends gives what the
requests kept: a leak of 1,000 bytes a request reads about +1,000 bytes a request.  Pages, not
allocations: what a window frees and reuses nets out, and the figure moves in steps of one page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

COMMAND = ("v.info", "memory", "aspacemgr")  # the gdbserver monitor command that writes the segment list
_AREA = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) ")


def client_anon(log: str, pid: int) -> list[tuple[int, int]]:
    """The program's anonymous mappings (first and last address) in the last segment list process ``pid`` wrote
    into ``log``; valgrind's own are written ``ANON`` and are left out.  Empty when it wrote none."""
    lead = f"--{pid}:0: aspacem "
    segment = re.compile(re.escape(lead) + r"\s*\d+: anon ([0-9a-f]+)-([0-9a-f]+)\s")
    last = log.rfind(lead + "<<< SHOW_SEGMENTS")
    if last < 0:
        return []
    return [(int(a, 16), int(b, 16)) for a, b in segment.findall(log, last)]


def resident(smaps: str, ranges: Iterable[tuple[int, int]]) -> int:
    """Bytes resident (``Rss``) in the areas of ``smaps`` that start inside one of ``ranges``."""
    spans = sorted(ranges)
    total, inside = 0, False
    for line in smaps.splitlines():
        area = _AREA.match(line)
        if area:
            start = int(area.group(1), 16)
            inside = any(a <= start <= b for a, b in spans)
        elif inside and line.startswith("Rss:"):
            total += int(line.split()[1]) * 1024
    return total


def read_smaps(pid: int) -> str:
    """``/proc/<pid>/smaps`` (empty when the process is gone)."""
    try:
        with open(f"/proc/{pid}/smaps") as f:
            return f.read()
    except OSError:
        return ""
