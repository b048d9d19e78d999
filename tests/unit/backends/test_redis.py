"""The Redis backend's parts that start nothing (backends.redis): its command line, and a URL nothing answers."""

import pytest

from serverbench.backends.redis import RedisService, connect_redis, redis_command
from serverbench.errors import BackendUnreachable
from serverbench.processes.ports import free_port


def test_the_redis_command_keeps_nothing_on_disk_and_listens_on_loopback_only():
    """redis-server runs in the foreground on the given port of 127.0.0.1, protected, with no RDB snapshot and no
    AOF (disk never enters a measurement), logging warnings only."""
    argv = redis_command("/usr/bin/redis-server", 6400)
    assert argv[0] == "/usr/bin/redis-server" and len(argv) % 2 == 1
    assert dict(zip(argv[1::2], argv[2::2])) == {
        "--port": "6400",
        "--bind": "127.0.0.1",
        "--save": "",
        "--appendonly": "no",
        "--daemonize": "no",
        "--protected-mode": "yes",
        "--loglevel": "warning",
    }


def test_a_redis_url_nothing_answers_is_an_error_naming_the_url_and_the_fixes():
    """--redis-url on a port nothing listens on: BackendUnreachable naming the URL and each way out; the service's
    count there is None (unknown), and a service serverbench did not start has no pid."""
    url = f"redis://127.0.0.1:{free_port()}/0"
    with pytest.raises(BackendUnreachable) as info:
        connect_redis(url)
    assert str(info.value).startswith(f"--redis-url {url} did not answer (")
    assert "Start that Redis, fix the URL, or drop --redis-url" in str(info.value)
    assert RedisService(url).count() is None and RedisService(url).pid is None


def test_on_a_backends_host_redis_listens_on_its_address_and_takes_the_server_hosts_connections():
    """Given a backends host's address it binds there with protected mode off (else it refuses every outside
    client); on loopback protected mode stays on."""
    argv = redis_command("/usr/bin/redis-server", 6400, "198.18.0.12")
    assert argv[argv.index("--bind") + 1] == "198.18.0.12" and argv[argv.index("--protected-mode") + 1] == "no"
    loop = redis_command("/usr/bin/redis-server", 6400)
    assert loop[loop.index("--protected-mode") + 1] == "yes"
