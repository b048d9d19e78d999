"""The counted server's processes: the listening socket's holders and a process tree that settles (measure.counting.workers)."""

import os
import socket

import pytest

from serverbench.measure.counting.workers import holders, listening_inode


def test_listening_socket_holders_are_found():
    """The process holding a listening socket is found through /proc."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        inode = listening_inode(sock.getsockname()[1])
        assert inode is not None
        assert holders([os.getpid()], inode) == [os.getpid()]


def test_the_counted_server_is_read_once_its_process_tree_settles():
    """A worker forked after the first look (gunicorn --preload forks one by one) is waited for: the pids come
    back only once the tree has not changed for the settle time."""
    from serverbench.measure.counting.workers import settled

    looks = iter([[1, 2], [1, 2, 3], [1, 2, 3, 4]])
    last = [[1, 2, 3, 4]]

    def tree(leader):
        return next(looks, last[0])

    assert settled(1, 1, tree, settle_s=0.05, cap_s=5) == [1, 2, 3, 4]


def test_a_tree_that_never_settles_is_read_at_the_cap():
    """A server that keeps forking is not waited for forever: the pids at the cap are used."""
    import itertools

    from serverbench.measure.counting.workers import settled

    counter = itertools.count(2)
    assert len(settled(1, 1, lambda leader: [1, next(counter)], settle_s=0.05, cap_s=0.3)) == 2


def test_a_tree_whose_declared_workers_hold_the_socket_is_read_before_the_settle_time():
    """When as many workers as the variant declares hold the listening socket, the tree is read without waiting
    the whole settle time (every worker holds the socket from its fork on)."""
    import subprocess
    import sys
    import time

    from serverbench.measure.counting.workers import settled

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], pass_fds=[sock.fileno()])
        try:
            tree = [1, os.getpid(), child.pid]
            began = time.monotonic()
            assert settled(1, port, lambda leader: tree, workers=2, settle_s=20, cap_s=30) == tree
            assert time.monotonic() - began < 5
            assert settled(1, port, lambda leader: tree, workers=3, settle_s=0.05, cap_s=0.5) == tree  # one short
        finally:
            child.kill()
            child.wait()


@pytest.fixture
def listening():
    """A socket of this process listening on a free loopback port: (socket, port)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock, sock.getsockname()[1]


def test_a_server_that_never_forks_is_read_once_its_leader_holds_the_socket(listening):
    """workers=0 (the catalog's one_process): the leader alone holding the listening socket is read at once, not
    after the whole settle time; a leader that does not hold it waits the settle time as any server."""
    import time

    from serverbench.measure.counting.workers import settled

    sock, port = listening
    me = os.getpid()
    began = time.monotonic()
    assert settled(me, port, lambda leader: [me], workers=0, settle_s=20, cap_s=30) == [me]
    assert time.monotonic() - began < 5
    sock.close()
    began = time.monotonic()
    assert settled(me, port, lambda leader: [me], workers=0, settle_s=0.5, cap_s=30) == [me]
    assert time.monotonic() - began >= 0.5


def test_a_server_marked_one_process_that_forks_is_waited_for(listening):
    """workers=0 with a child in the tree: the pids come back only after the settle time, the child included."""
    import time

    from serverbench.measure.counting.workers import settled

    me, port = os.getpid(), listening[1]
    began = time.monotonic()
    assert settled(me, port, lambda leader: [me, 99999], workers=0, settle_s=0.5, cap_s=30) == [me, 99999]
    assert time.monotonic() - began >= 0.5


def test_the_waits_count_from_the_youngest_process_start(listening):
    """A one-process server's and declared workers' waits count from the youngest process's start: a tree older
    than the wait is read at once, one with a worker just forked is read once that worker is as old as the wait."""
    import subprocess
    import sys
    import time

    from serverbench.measure.counting.workers import settled, youngest_age

    sock, port = listening
    me = os.getpid()
    assert youngest_age([me]) > 0.5  # pytest started well before this test
    began = time.monotonic()
    assert settled(me, port, lambda leader: [me], workers=0, settle_s=20, cap_s=30, workers_settle_s=0.5) == [me]
    assert time.monotonic() - began < 0.3
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], pass_fds=[sock.fileno()])
    try:
        began = time.monotonic()
        tree = [me, child.pid]
        assert settled(me, port, lambda leader: tree, workers=1, settle_s=20, cap_s=30, workers_settle_s=0.5) == tree
        assert 0.3 <= time.monotonic() - began < 5
    finally:
        child.kill()
        child.wait()
