"""A host's processes as one round trip reads them (hosts.procstat): stat lines, who asked, the host's units."""

from __future__ import annotations

from serverbench.hosts.procstat import parse, parse_stat, units

# pid (comm) state ppid pgrp session tty tpgid flags 4 faults utime stime cutime cstime prio nice threads itreal
# starttime vsize rss ...
LINE = "4242 (python3 (gunicorn) w) S 4200 4200 4200 0 -1 4194560 10 0 0 0 150 50 7 3 20 0 1 0 98765 3133440 2500 1 2"


def test_a_stat_line_gives_cpu_children_start_and_resident_pages():
    """A name with spaces and parentheses parses; CPU is utime + stime, the children's cutime + cstime."""
    stat = parse_stat(LINE)
    assert (stat.pid, stat.ppid, stat.pgrp) == (4242, 4200, 4200)
    assert (stat.ticks, stat.children_ticks, stat.start, stat.rss_pages) == (200, 10, 98765, 2500)
    assert stat.key == (4242, 98765)


def test_what_is_not_a_stat_line_is_left_out():
    """Garbage, a cut line and a non-numeric field are None."""
    assert parse_stat("garbage") is None
    assert parse_stat("12 (x) S 1 2") is None
    assert parse_stat("12 (x) S 1 2 3 0 -1 0 0 0 0 0 x 5 0 0") is None


def test_a_sample_names_the_asking_shell_and_its_sshd_and_every_process():
    """The first line says who asked; every stat line after it is kept by pid."""
    sampled = parse("asked 900 880\n" + LINE + "\n880 (sshd) S 1 880 880 0 -1 0 0 0 0 0 5 5 40 20 20 0 1 0 7 0 300\n")
    assert (sampled.shell, sampled.sshd) == (900, 880)
    assert set(sampled.stats) == {4242, 880} and sampled.stats[880].children_ticks == 60


def test_a_host_that_does_not_say_its_units_gets_linuxs_usual_ones():
    """getconf's two answers are read; missing or bad ones are 100 ticks a second and 4 KiB pages."""
    assert units("250\n16384\n") == (250, 16384)
    assert units("") == (100, 4096) and units("x 0") == (100, 4096)


def test_a_sample_keeps_each_cores_busy_and_stolen_ticks():
    """/proc/stat's cpu lines: busy is user, nice, system, irq and softirq (not idle or iowait), steal beside."""
    sampled = parse("asked 1 2\ncpu  10 1 5 900 7 2 3 4 0 0\ncpu0 6 0 3 450 3 1 2 4 0 0\nintr 5\n")
    assert sampled.cpus == {"cpu": (21, 4), "cpu0": (12, 4)}
