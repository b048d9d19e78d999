"""Each socket descriptor's peer, read from /proc and named as a verdict names it."""

import os
import socket

from serverbench.measure.counting import peers


def test_backends_are_named_from_their_url_variables():
    """SERVERBENCH_<NAME>_URL gives the backend's address its name; localhost stands for both loopbacks; other
    variables and URLs without a port name nothing."""
    names = peers.backend_names(
        {
            "SERVERBENCH_REDIS_URL": "redis://127.0.0.1:27535/0",
            "SERVERBENCH_MONGO_URL": "mongodb://localhost:27017/?directConnection=true",
            "SERVERBENCH_UPSTREAM_URL": "http://127.0.0.1/",
            "SERVERBENCH_WORK_ITERS": "5",
        }
    )
    assert names == {("127.0.0.1", 27535): "redis", ("127.0.0.1", 27017): "mongo", ("::1", 27017): "mongo"}


def test_a_peer_is_the_clients_a_backend_or_its_address():
    """A listening socket and one on the server's own port are the clients'; a backend's address its name; any
    other its address and port, an IPv6 one bracketed, an IPv4-mapped one as IPv4."""
    names = {("127.0.0.1", 6379): "redis"}
    assert peers.label(("0.0.0.0", 0), 8000, peers.LISTEN, names, ()) == "clients"
    assert peers.label(("127.0.0.1", 51000), 8000, 1, names, (8000,)) == "clients"
    assert peers.label(("::ffff:127.0.0.1", 6379), 40000, 1, names, (8000,)) == "redis"
    assert peers.label(("::1", 5432), 40000, 1, names, (8000,)) == "[::1]:5432"


def test_the_sockets_of_a_process_are_named_from_proc():
    """This process's listening socket and what it accepted are the clients', a connection to a backend's port its
    name, another its address, a socket pair unix; a process that is gone has none."""
    with socket.create_server(("127.0.0.1", 0)) as server, socket.create_server(("127.0.0.1", 0)) as backend:
        port, backend_port = server.getsockname()[1], backend.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        accepted, _ = server.accept()
        to_backend = socket.create_connection(("127.0.0.1", backend_port))
        pair = socket.socketpair()
        try:
            found = peers.socket_peers(os.getpid(), {("127.0.0.1", backend_port): "redis"}, (port,))
            assert found[server.fileno()] == "clients" and found[accepted.fileno()] == "clients"
            assert found[backend.fileno()] == "clients"  # listening: its own accepted ones are a server's clients
            assert found[to_backend.fileno()] == "redis"
            assert found[client.fileno()] == f"127.0.0.1:{port}"
            assert found[pair[0].fileno()] == "unix"
        finally:
            for s in (client, accepted, to_backend, *pair):
                s.close()
    assert peers.socket_peers(2**22 + 1, {}, ()) == {}


def test_connections_opened_and_closed_stay_in_the_table_by_peer():
    """A connection to a backend opened and closed (the client closing first, as an app does) is still in the
    kernel's table (TIME_WAIT): counted as opened to that backend; the server's own port is the clients' and left
    out; another listener is named by its listening end, not the connecting one."""
    with socket.create_server(("127.0.0.1", 0)) as server, socket.create_server(("127.0.0.1", 0)) as backend:
        port, backend_port = server.getsockname()[1], backend.getsockname()[1]
        names = {("127.0.0.1", backend_port): "redis"}
        before = peers.tcp_connections(os.getpid(), names, (port,))
        client = socket.create_connection(("127.0.0.1", port))
        accepted_client, _ = server.accept()
        for _ in range(3):
            to_backend = socket.create_connection(("127.0.0.1", backend_port))
            accepted, _ = backend.accept()
            to_backend.close()
            accepted.close()
        with socket.create_server(("127.0.0.1", 0)) as other:
            other_port = other.getsockname()[1]
            to_other = socket.create_connection(other.getsockname())
            accepted_other, _ = other.accept()
            after = peers.tcp_connections(os.getpid(), names, (port,))
            to_other.close()
            accepted_other.close()
        client.close()
        accepted_client.close()
    opened = peers.opened_between(before, after)
    assert opened["redis"] == 3 and opened[f"127.0.0.1:{other_port}"] == 1, after  # others' may run beside
