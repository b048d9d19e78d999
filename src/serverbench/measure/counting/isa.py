"""The instruction-set level a counted program sees: valgrind's virtual CPU, not the host's.

glibc picks its string routines (and the dynamic loader its glibc-hwcaps library folders) by the CPU
features the program sees.  Under valgrind that is valgrind's virtual CPU: valgrind 3.19 offers no
AVX-512, so on an AVX-512 host the counted program runs the same AVX2 code paths as on an AVX2 host.
The cost environment's key therefore holds the level seen under valgrind, probed once per session (and
per valgrind binary) by running the dynamic loader's ``--help`` under ``valgrind --tool=none``: glibc >=
2.33 lists the glibc-hwcaps levels x86-64-v2/v3/v4, each marked "supported" when the CPU it runs on has
that level's features.  No compiler is needed.
"""

from __future__ import annotations

import platform
import re
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

from ..trees.packages import isa_level

LOADERS = ("/lib64/ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2")
HWCAPS_SECTION = "Subdirectories of glibc-hwcaps directories"
# The highest level valgrind's virtual CPU offers when the loader cannot say (glibc < 2.33): valgrind has
# no AVX-512 (3.19 to 3.24), so an AVX-512 host counts at v3.
VALGRIND_CEILING = "x86-64-v3"


def hwcaps_level(ld_help: str) -> str | None:
    """The highest ``x86-64-vN`` that ``ld.so --help`` marks supported (``x86-64-v1`` when it lists the levels
    and supports none); None when the output has no glibc-hwcaps section (glibc < 2.33, or not x86-64)."""
    if HWCAPS_SECTION not in ld_help:
        return None
    section = ld_help.split(HWCAPS_SECTION, 1)[1].split("\n\n", 1)[0]
    supported = [
        int(level)
        for level, marks in re.findall(r"^\s*x86-64-v(\d)\s*\(([^)]*)\)", section, re.M)
        if "supported" in marks.split(", ")
    ]
    return f"x86-64-v{max(supported)}" if supported else "x86-64-v1"


def cap(level: str, ceiling: str = VALGRIND_CEILING) -> str:
    """``level`` no higher than ``ceiling`` (both ``x86-64-vN``); other names pass unchanged."""
    if level.startswith("x86-64-v") and ceiling.startswith("x86-64-v"):
        return min(level, ceiling)  # one digit each: string order is level order
    return level


@lru_cache(maxsize=4)
def counted_isa_level(valgrind: str | None = None) -> str:
    """The ISA level the program sees under ``valgrind`` (default: valgrind on PATH), probed once per binary.

    Off x86-64 it is the machine's name.  Without valgrind or a loader that lists its levels, the host's
    level capped at :data:`VALGRIND_CEILING`."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return isa_level()
    valgrind = valgrind or shutil.which("valgrind")
    loader = next((p for p in LOADERS if Path(p).exists()), None)
    if valgrind is not None and loader is not None:
        try:
            out = subprocess.run(
                [valgrind, "--tool=none", "--log-fd=2", loader, "--help"], capture_output=True, text=True, timeout=120
            )
            level = hwcaps_level(out.stdout)  # valgrind's own lines go to stderr
            if level is not None:
                return level
        except (OSError, subprocess.TimeoutExpired):
            pass
    return cap(isa_level())
