"""The program's own resident memory under valgrind: its anonymous segments, apart from valgrind's."""

import os

from serverbench.measure.counting import clientmemory

LOG = """server starting
--77:0: aspacem <<< SHOW_SEGMENTS: gdbserver v.info memory aspacemgr (4 segments)
--77:0: aspacem  11: anon 0004000000-0004001fff    8192 rwx--
--88:0: aspacem <<< SHOW_SEGMENTS: gdbserver v.info memory aspacemgr (2 segments)
--77:0: aspacem  12: ANON 1002001000-1002b8bfff     11m rwx--
--88:0: aspacem   3: anon 0009000000-0009000fff    4096 rw---
--77:0: aspacem >>>
--77:0: aspacem <<< SHOW_SEGMENTS: gdbserver v.info memory aspacemgr (4 segments)
--77:0: aspacem  11: anon 0004000000-0004003fff   16384 rwx--
--77:0: aspacem  12: ANON 1002001000-1002b8bfff     11m rwx--
--77:0: aspacem  13: file 0005000000-0005000fff    4096 r----
--77:0: aspacem  14: anon 1ffefee000-1fff000fff   77824 rw---
--77:0: aspacem >>>
"""

SMAPS = """0004000000-0004004000 rwxp 00000000 00:00 0
Size:                 16 kB
Rss:                  12 kB
Pss:                  12 kB
1002001000-1002b8c000 rwxp 00000000 00:00 0
Rss:                9000 kB
0005000000-0005001000 r--p 00000000 fe:00 42    /usr/lib/libc.so.6
Rss:                   4 kB
1ffefee000-1fff001000 rw-p 00000000 00:00 0
Rss:                  20 kB
"""


def test_the_programs_anonymous_segments_are_the_last_list_its_process_wrote():
    """Only ``anon`` segments (valgrind's own are ``ANON``, files are not anonymous), of this pid's latest list."""
    assert clientmemory.client_anon(LOG, 77) == [(0x4000000, 0x4003FFF), (0x1FFEFEE000, 0x1FFF000FFF)]
    assert clientmemory.client_anon(LOG, 88) == [(0x9000000, 0x9000FFF)]
    assert clientmemory.client_anon(LOG, 99) == []


def test_resident_bytes_count_the_programs_areas_only():
    """Rss of the areas that start inside the program's segments: valgrind's 9,000 kB and the file are left out."""
    ranges = clientmemory.client_anon(LOG, 77)
    assert clientmemory.resident(SMAPS, ranges) == (12 + 20) * 1024


def test_smaps_of_this_process_reads_and_of_a_gone_one_is_empty():
    """The kernel's smaps of a live process; nothing for one that is gone."""
    assert "Rss:" in clientmemory.read_smaps(os.getpid())
    assert clientmemory.read_smaps(2**22 + 1) == ""
