"""callgrind's file format and vgdb's pipes (measure.counting.callgrind), pure: no valgrind runs."""

import os

from serverbench.measure.counting.callgrind import VGDB_PREFIX, read_dump, remove_pipes

DUMP = """# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4242
cmd:  /venv/bin/python -m gunicorn app:app
part: 1
positions: line
events: Ir
summary: 1600

ob=(1) /usr/lib/libpython3.11.so.1.0
fl=(1) ceval.c
fn=(1) _PyEval_EvalFrameDefault
10 1000
+2 200
cob=(2) /usr/lib/x86_64-linux-gnu/libc.so.6
cfl=(2) memcpy.S
cfn=(2) memcpy
calls=3 0
12 300
ob=(2)
fl=(2)
fn=(2)
0 300
ob=(1)
fn=(1)
14 100
"""


def test_dump_keeps_self_cost_per_function(tmp_path):
    """Self cost goes to (object, function); a call's inclusive cost is not counted twice."""
    path = tmp_path / "callgrind.4242.1"
    path.write_text(DUMP)
    dump = read_dump(path)
    assert (dump.pid, dump.instructions) == (4242, 1600)
    assert dump.command == "/venv/bin/python -m gunicorn app:app"
    assert dump.functions == {
        ("/usr/lib/libpython3.11.so.1.0", "_PyEval_EvalFrameDefault"): 1300,
        ("/usr/lib/x86_64-linux-gnu/libc.so.6", "memcpy"): 300,
    }


def test_the_pipes_of_a_killed_server_are_removed_and_no_others(tmp_path):
    """remove_pipes removes vgdb's pipes of the pids that logged into the folder, and leaves another pid's."""
    (tmp_path / "valgrind.999991.log").write_text("")
    mine = [
        f"{VGDB_PREFIX}-from-vgdb-to-999991-by-root-on-host",
        f"{VGDB_PREFIX}-shared-mem-vgdb-999991-by-root-on-host",
    ]
    other = f"{VGDB_PREFIX}-from-vgdb-to-9999912-by-root-on-host"
    for name in [*mine, other]:
        open(name, "w").close()
    try:
        remove_pipes(tmp_path)
        assert [os.path.exists(n) for n in mine] == [False, False] and os.path.exists(other)
    finally:
        for name in [*mine, other]:
            if os.path.exists(name):
                os.unlink(name)


def test_a_vgdb_command_that_reaches_no_process_names_the_pid():
    """A monitor command sent to a pid no valgrind runs fails with the pid and vgdb's own words."""
    import shutil

    import pytest

    from serverbench.measure.counting.callgrind import CountingError, control

    if shutil.which("vgdb") is None:
        pytest.skip("valgrind is not installed (`apt-get install valgrind`)")
    with pytest.raises(CountingError, match="for pid 4194303 failed"):
        control([4194303], "dump")
