"""System calls, socket bytes and connections read from a window of valgrind's system-call trace."""

from serverbench.measure.counting import systrace

BEFORE = """==4711== Callgrind, a call-graph generating cache profiler
SYSCALL[4711,1](257) sys_openat ( -100, 0x4a2(/etc/hosts), 0 ) --> [async] ...
SYSCALL[4711,1](257) ... [async] --> Success(0x7)
SYSCALL[4711,1](288) sys_accept4 ( 4, 0x1fff0000a0, 0x1fff000094, 524288 ) --> [async] ...
"""
WINDOW = """SYSCALL[4711,1](288) ... [async] --> Success(0x5)
SYSCALL[4711,1](51) sys_getsockname ( 5, 0x1ffefffd50, 0x1ffefffd24 )[sync] --> Success(0x0)
SYSCALL[4711,1](72) sys_fcntl[ARG3=='arg'] ( 5, 4, 2048 )[sync] --> Success(0x0)
SYSCALL[4711,1](45) sys_recvfrom ( 5, 0x5475c70, 100, 0, 0x0, 0x0 ) --> [async] ...
SYSCALL[4711,2](0) sys_read ( 7, 0x5475c70, 100 ) --> [async] ...
SYSCALL[4711,1](45) ... [async] --> Success(0x27)
SYSCALL[4711,2](0) ... [async] --> Success(0x64)
SYSCALL[4711,1](230) sys_clock_nanosleep( 1, 1, 0x1fff000160, 0x0 ) --> [async] ...
SYSCALL[4711,1](230) ... [async] --> Success(0x0)
SYSCALL[4711,1](44) sys_sendto ( 3, 0x51f1880, 10, 0, 0x0, 0 ) --> [async] ...
SYSCALL[4711,1](44) ... [async] --> Success(0xa)
SYSCALL[4711,1](42) sys_connect ( 8, 0x1ffefff000, 16 ) --> [async] ...
SYSCALL[4711,1](42) ... [async] --> Failure(0x73)
SYSCALL[4711,1](334) unimplemented (by the kernel) syscall: 334! (ni_syscall)
 --> [pre-fail] Failure(0x26)
SYSCALL[4711,1](1) sys_write ( 5, 0x51f1880, 173 ) --> [async] ...
SYSCALL[4711,1](1) ... [async] --> Success(0xad)
SYSCALL[4711,1](3) sys_close ( 5 )[sync] --> Success(0x0)
SYSCALL[4711,1](1) sys_write ( 5, 0x51f1880, 9 ) --> [async] ...
SYSCALL[4711,1](1) ... [async] --> Success(0x9)
SYSCALL[4711,1](288) sys_accept4 ( 4, 0x1fff0000a0, 0x1fff000094, 524288 ) --> [async] ...
"""
AFTER = """SYSCALL[4711,1](288) ... [async] --> Success(0x5)
SYSCALL[4711,1](1) sys_write ( 5, 0x51f1880, 173 ) --> [async] ...
"""


def _log(tmp_path):
    path = tmp_path / "valgrind.4711.log"
    path.write_text(BEFORE + WINDOW + AFTER)
    return path, len(BEFORE.encode()), len((BEFORE + WINDOW).encode())


def test_a_window_counts_the_calls_that_start_in_it_by_name(tmp_path):
    """Each call counts once, where it starts: a call waiting when the window opened is not among them."""
    path, start, end = _log(tmp_path)
    calls = systrace.read_window(path, start, end, sockets={3, 4}).calls
    assert calls == {
        "getsockname": 1,
        "fcntl": 1,
        "recvfrom": 1,
        "read": 1,
        "clock_nanosleep": 1,
        "sendto": 1,
        "connect": 1,
        "write": 2,
        "close": 1,
        "accept4": 1,
        "syscall 334": 1,  # one valgrind does not know is named by its number
    }


def test_bytes_count_on_sockets_only_and_connections_where_they_open(tmp_path):
    """Bytes on sockets (known ones and one accepted in the window, until it closes), never on a file;
    an accept waiting before the window and a connect in progress are each a connection opened."""
    path, start, end = _log(tmp_path)
    window = systrace.read_window(path, start, end, sockets={3, 4})
    assert window.received == 0x27  # fd 7 (a file) read 100 bytes: not a socket's
    assert window.sent == 10 + 173  # fd 5's 9 bytes after its close went to whatever fd 5 became
    assert window.connections == 2


def test_a_log_without_a_trace_says_so(tmp_path):
    """A log with no SYSCALL line was not traced (the count is absent, not zero)."""
    path, _, _ = _log(tmp_path)
    assert systrace.traced(path)
    bare = tmp_path / "valgrind.1.log"
    bare.write_text("==1== Callgrind\n")
    assert not systrace.traced(bare)


def test_names_lose_valgrinds_prefixes_and_argument_notes():
    """The name is the system call's: ``sys_`` and ``[ARG3==...]`` are valgrind's own."""
    assert systrace.call_name("sys_clock_nanosleep( 1, 1 )") == "clock_nanosleep"
    assert systrace.call_name("arch_prctl ( 4098, 4a28740 )") == "arch_prctl"
    assert systrace.call_name("sys_fcntl[ARG3=='arg'] ( 5, 4, 2048 )") == "fcntl"


def test_windows_add_up_and_read_per_request():
    """Processes' windows sum, their peers' too; per request is each name's count over the requests, largest first."""
    a = systrace.SystemWindow(systrace.Counter({"sendto": 4}), 10, 20, 1)
    a.add(systrace.SystemWindow(systrace.Counter({"sendto": 2, "poll": 8}), 1, 2, 1))
    assert (a.sent, a.received, a.connections) == (11, 22, 2)
    b = systrace.SystemWindow(peers={"redis": systrace.SystemWindow(systrace.Counter({"sendto": 1}))})
    a.add(b)
    a.add(b)
    assert a.peers["redis"].calls == {"sendto": 2}
    assert systrace.per_request(a, 2) == {"poll": 4.0, "sendto": 3.0}
    assert list(systrace.per_request(a, 2)) == ["poll", "sendto"]


def test_each_sockets_calls_bytes_and_connections_count_for_its_peer(tmp_path):
    """A call whose first argument is a socket counts for that socket's peer too: the listening socket's accept and
    what it accepted for the clients, fd 3 for redis; a socket connected in the window is named by what was read
    when it ended, or unseen when it had closed by then; calls on no socket count for no peer."""
    path, start, end = _log(tmp_path)
    window = systrace.read_window(path, start, end, {3: "redis", 4: "clients"}, at_end={8: "10.0.0.7:8125"})
    peers = window.peers
    assert set(peers) == {"clients", "redis", "10.0.0.7:8125"}
    assert peers["redis"].calls == {"sendto": 1} and peers["redis"].sent == 10
    assert peers["clients"].calls == {"getsockname": 1, "fcntl": 1, "recvfrom": 1, "write": 1, "close": 1, "accept4": 1}
    assert (peers["clients"].sent, peers["clients"].received, peers["clients"].connections) == (173, 0x27, 1)
    assert peers["10.0.0.7:8125"].calls == {"connect": 1} and peers["10.0.0.7:8125"].connections == 1
    closed = systrace.read_window(path, start, end, {3: "redis", 4: "clients"})
    assert closed.peers["unseen"].connections == 1  # fd 8 never seen open


def test_a_socket_opened_in_the_window_takes_its_own_call_and_a_reused_descriptor_a_new_peer(tmp_path):
    """socket() counts for the socket it returns, not for a descriptor numbered like its domain; a descriptor
    closed and opened again is two sockets, each with its own peer."""
    log = tmp_path / "valgrind.9.log"
    log.write_text(
        "SYSCALL[9,1](41) sys_socket ( 2, 524289, 6 )[sync] --> Success(0xa)\n"
        "SYSCALL[9,1](44) sys_sendto ( 10, 0x1, 5, 0, 0x0, 0 )[sync] --> Success(0x5)\n"
        "SYSCALL[9,1](3) sys_close ( 10 )[sync] --> Success(0x0)\n"
        "SYSCALL[9,1](41) sys_socket ( 2, 524289, 6 )[sync] --> Success(0xa)\n"
        "SYSCALL[9,1](44) sys_sendto ( 10, 0x1, 7, 0, 0x0, 0 )[sync] --> Success(0x7)\n"
    )
    window = systrace.read_window(log, 0, log.stat().st_size, {2: "clients"}, at_end={10: "redis"})
    assert window.peers["unseen"].calls == {"socket": 1, "sendto": 1, "close": 1}
    assert window.peers["redis"].calls == {"socket": 1, "sendto": 1} and window.peers["redis"].sent == 7
    assert "clients" not in window.peers  # fd 2's number is socket()'s domain, not its argument


def test_per_request_counts_keep_each_peers_figures():
    """A window's counts per request carry each peer's, whose own peers are not followed."""
    window = systrace.SystemWindow(systrace.Counter({"sendto": 4}), 10, 20, 2)
    window.peers = {"redis": systrace.SystemWindow(systrace.Counter({"sendto": 4}), 10, 20, 0)}
    counts = systrace.counts(window, 2)
    assert counts.calls == {"sendto": 2.0} and counts.connections == 1.0
    assert counts.peers["redis"].calls == {"sendto": 2.0} and counts.peers["redis"].peers is None


PER_REQUEST_CONNECTION = (
    "SYSCALL[9,1](41) sys_socket ( 2, 526337, 6 )[sync] --> Success(0xa)\n"  # SOCK_STREAM|NONBLOCK|CLOEXEC
    "SYSCALL[9,1](42) sys_connect ( 10, 0x1ffeffef10, 16 )[sync] --> Failure(0x73)\n"  # EINPROGRESS
    "SYSCALL[9,1](44) sys_sendto ( 10, 0x1, 14, 0, 0x0, 0 )[sync] --> Success(0xe)\n"
    "SYSCALL[9,1](3) sys_close ( 10 )[sync] --> Success(0x0)\n"
    "SYSCALL[9,1](41) sys_socket ( 2, 524290, 0 )[sync] --> Success(0xb)\n"  # SOCK_DGRAM: a UDP socket
    "SYSCALL[9,1](42) sys_connect ( 11, 0x1ffeffef10, 16 )[sync] --> Success(0x0)\n"
    "SYSCALL[9,1](3) sys_close ( 11 )[sync] --> Success(0x0)\n"
)


def test_a_tcp_socket_closed_in_the_window_takes_the_one_peer_the_kernel_saw_connections_to(tmp_path):
    """A connection opened and closed inside the window is named by the one backend the kernel's table shows new
    connections to (as many as such sockets at least); a UDP socket, or new connections to two backends, stay
    unseen."""
    log = tmp_path / "valgrind.9.log"
    log.write_text(PER_REQUEST_CONNECTION)
    size = log.stat().st_size
    named = systrace.read_window(log, 0, size, {}, opened={"redis": 1}).peers
    assert named["redis"].calls == {"socket": 1, "connect": 1, "sendto": 1, "close": 1}
    assert named["redis"].connections == 1 and named["redis"].sent == 14
    assert named["unseen"].calls == {"socket": 1, "connect": 1, "close": 1}  # the UDP one
    for opened in ({}, {"redis": 1, "mongo": 1}, {"redis": 0}):
        peers = systrace.read_window(log, 0, size, {}, opened=opened).peers
        assert set(peers) == {"unseen"} and peers["unseen"].connections == 2, opened
