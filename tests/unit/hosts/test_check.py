"""Judging what the hosts answered (hosts.check): the same environment, the tools of each role, one refusal."""

from __future__ import annotations

from serverbench.hosts.check import HostCheck, problems, refusal
from serverbench.hosts.inventory import Host

HERE = {"version": "0.1.0", "source": "abc", "packages": "def"}
LOAD = Host("load1", "load", "198.18.0.11", "/e")
BACKENDS = Host("db", "backends", "198.18.0.12", "/e")
READY = {
    **HERE,
    "tools": {"oha": "/bin/oha", "wrk": None, "redis-server": "/bin/redis-server"},
    "modules": {"locust": "2"},
}


def test_a_host_like_this_one_with_its_tools_is_ready():
    """Same version, source and packages, oha and locust on a load host: no problem."""
    assert problems(LOAD, READY, HERE) == ()
    assert problems(BACKENDS, READY, HERE) == ()


def test_a_different_environment_is_refused_with_the_fix():
    """Another lock's packages: a problem naming both digests and how to make them equal."""
    found = problems(LOAD, {**READY, "packages": "zzz"}, HERE)
    assert len(found) == 1 and "zzz, here def" in found[0] and "uv.lock" in found[0]


def test_missing_tools_are_named_per_role():
    """A load host with no generator and no locust, a backends host with no redis-server: each named."""
    bare = {**HERE, "tools": {}, "modules": {}}
    load = problems(LOAD, bare, HERE)
    assert any("neither oha nor wrk" in p for p in load) and any("no locust" in p for p in load)
    assert any("redis-server" in p for p in problems(BACKENDS, bare, HERE))


def test_an_unreached_host_is_a_problem_and_the_refusal_names_every_host():
    """Not reached: its error is its problem; the refusal lists each host's problems, none when all are ready."""
    down = HostCheck(LOAD, None, "cannot be reached", problems=problems(LOAD, None, HERE, "cannot be reached"))
    ok = HostCheck(BACKENDS, READY, None)
    text = refusal([down, ok])
    assert text.startswith("the hosts are not ready") and "load1" in text and "cannot be reached" in text
    assert refusal([ok]) is None
    assert down.as_json()["reached"] is False and ok.as_json()["reached"] is True


def test_a_server_host_without_this_sessions_packages_is_refused_naming_it_and_the_fixing_command():
    """The server host a session apart starts its servers on, with another lock's packages: the refusal names the
    server host and the command that installs exactly uv.lock there."""
    server = Host("app", "server", "198.18.0.10", "/e")
    found = problems(server, {**READY, "packages": "zzz"}, HERE)
    text = refusal([HostCheck(server, {**READY, "packages": "zzz"}, problems=found)])
    assert "app" in text and "installed packages (the lock) is zzz, here def" in text
    assert "./run perf --collect-only" in text
