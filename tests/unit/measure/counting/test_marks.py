"""A counted window's marks read back: system calls per request from each process's log, memory kept from the
resident bytes at its start and end, and what is absent said, not zeroed."""

from serverbench.measure.counting.marks import Marks

LOG = """SYSCALL[7,1](45) sys_recvfrom ( 5, 0x1, 100, 0, 0x0, 0x0 ) --> [async] ...
SYSCALL[7,1](45) ... [async] --> Success(0x27)
SYSCALL[7,1](230) sys_clock_nanosleep( 1, 1, 0x1, 0x0 ) --> [async] ...
SYSCALL[7,1](230) ... [async] --> Success(0x0)
SYSCALL[7,1](44) sys_sendto ( 5, 0x1, 173, 0, 0x0, 0 ) --> [async] ...
SYSCALL[7,1](44) ... [async] --> Success(0xad)
"""


def test_the_window_of_each_log_gives_calls_bytes_and_connections_per_request(tmp_path):
    """Two requests' calls between the marks, summed over the processes, divided by the requests."""
    (tmp_path / "valgrind.7.log").write_text(LOG * 2)
    marks = Marks(tmp_path)
    marks.start, marks.stop, marks.sockets = {7: 0}, {7: len(LOG) * 2}, {7: {5}}
    system, absent = marks.system([7], requests=2)
    assert absent == "" and system.calls == {"recvfrom": 1.0, "clock_nanosleep": 1.0, "sendto": 1.0}
    assert (system.sent, system.received, system.connections) == (173.0, 39.0, 0.0)


def test_an_untraced_log_is_absent_with_the_reason(tmp_path):
    """A log without a trace gives no counts, and says which process and log."""
    (tmp_path / "valgrind.7.log").write_text("==7== Callgrind\n")
    system, absent = Marks(tmp_path).system([7], requests=2)
    assert system is None and "wrote no system-call trace for pid 7 (valgrind.7.log)" in absent


def test_memory_kept_is_the_resident_growth_per_request_or_absent_when_unseen(tmp_path):
    """Start and end resident bytes of each process: their growth over the requests; a process whose segment
    list was not found makes the figure absent, with the reason."""
    marks = Marks(tmp_path)
    marks.memory = [{7: 4096, 8: 0}, {7: 4096 + 200_000, 8: 8192}]
    assert marks.kept(200) == ((200_000 + 8192) / 200, "")
    marks.memory = [{7: 4096}, {7: None}]
    kept, absent = marks.kept(200)
    assert kept is None and "segment list" in absent
