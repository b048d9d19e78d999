"""The ISA level in the cost key is the one the counted program sees under valgrind (measure/counting/isa.py)."""

import shutil

import pytest

from serverbench.measure.counting.isa import cap, counted_isa_level, hwcaps_level
from serverbench.records.cost import environment_id

HEAD = """Usage: ld.so [OPTION]... EXECUTABLE-FILE [ARGS-FOR-PROGRAM...]
You have invoked 'ld.so', the program interpreter for dynamically-linked
ELF programs.

Shared library search path:
  (libraries located via /etc/ld.so.cache)
  /lib/x86_64-linux-gnu (system search path)

"""
# Captured on this machine (AMD EPYC, AVX2, no AVX-512, glibc 2.36) under `valgrind --tool=none` (3.19.0).
VALGRIND_VIEW = (
    HEAD
    + """Subdirectories of glibc-hwcaps directories, in priority order:
  x86-64-v4
  x86-64-v3 (supported, searched)
  x86-64-v2 (supported, searched)

Legacy HWCAP subdirectories under library search path directories:
  haswell (AT_PLATFORM; supported, searched)
  tls (supported, searched)
  avx512_1
  x86_64 (supported, searched)
"""
)
# An AVX-512 host natively: this machine has none, so these lines are as CachyOS's documentation prints them
# for "a CPU compatible with x86-64-v4" (`ld-linux-x86-64.so.2 --help | grep supported`), in glibc's layout.
AVX512_HOST = (
    HEAD
    + """Subdirectories of glibc-hwcaps directories, in priority order:
  x86-64-v4 (supported, searched)
  x86-64-v3 (supported, searched)
  x86-64-v2 (supported, searched)

Legacy HWCAP subdirectories under library search path directories:
  haswell (AT_PLATFORM; supported, searched)
  tls (supported, searched)
  avx512_1 (supported, searched)
  x86_64 (supported, searched)
"""
)
KEY = {"interpreter": "cpython-3.11.7", "libc": "glibc-2.36", "valgrind": "3.19.0"}


def test_a_v4_host_natively_is_v4():
    """The loader of an AVX-512 host marks x86-64-v4 supported: the parser reads v4."""
    assert hwcaps_level(AVX512_HOST) == "x86-64-v4"


def test_the_valgrind_view_is_v3():
    """Under valgrind the loader marks v3 and v2 supported, not v4 (its avx512_1 legacy line is not read)."""
    assert hwcaps_level(VALGRIND_VIEW) == "x86-64-v3"


def test_no_level_supported_is_v1_and_no_section_is_unknown():
    """A listed section with nothing supported is v1; an old glibc's help without the section is None."""
    assert (
        hwcaps_level(
            HEAD + "Subdirectories of glibc-hwcaps directories, in priority order:\n  x86-64-v4\n"
            "  x86-64-v3\n  x86-64-v2\n"
        )
        == "x86-64-v1"
    )
    assert hwcaps_level(HEAD) is None


def test_an_avx512_host_and_an_avx2_host_share_one_key():
    """What an AVX-512 host's counted program sees (no AVX-512 under valgrind) and an AVX2 host give one key."""
    avx512_under_valgrind = cap("x86-64-v4")  # the fallback when the loader cannot say; the probe reads v3 there
    avx2_host = hwcaps_level(VALGRIND_VIEW)
    assert avx512_under_valgrind == avx2_host == "x86-64-v3"
    assert (
        environment_id({**KEY, "isa": avx512_under_valgrind})
        == environment_id({**KEY, "isa": avx2_host})
        == "cpython-3.11.7-x86-64-v3-glibc-2.36-valgrind-3.19.0"
    )


def test_cap_leaves_lower_levels_and_other_machines():
    """The ceiling lowers v4 only; v2 and a non-x86 machine name pass unchanged."""
    assert cap("x86-64-v2") == "x86-64-v2"
    assert cap("aarch64") == "aarch64"


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_the_probe_reads_a_level_here():
    """The real probe (ld.so --help under valgrind --tool=none) names an x86-64 level here, once per binary."""
    level = counted_isa_level()
    assert level.startswith("x86-64-v") or "x86" not in level
    assert counted_isa_level() is level  # cached for the session
