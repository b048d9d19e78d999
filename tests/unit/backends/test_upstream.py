"""The slow upstream's parts that start nothing (backends.upstream): nginx's configuration, the echo module's
lookup, and a URL nothing answers."""

import pytest

from serverbench.backends import upstream
from serverbench.backends.upstream import UpstreamService, connect_upstream, find_echo_module, nginx_conf
from serverbench.errors import BackendUnreachable, MissingBinaryError
from serverbench.processes.ports import free_port


def test_nginx_answers_the_delay_path_after_the_contracts_delay_on_loopback_with_its_files_in_the_prefix(tmp_path):
    """The configuration loads the echo module given, runs in the foreground, listens on 127.0.0.1 at the port, echoes
    the contract's body after 0.1 s at /delay, answers /ready and /status, and keeps its pid and temp files under the
    prefix."""
    conf = nginx_conf(8123, tmp_path, "/mods/echo.so")
    assert conf.startswith("load_module /mods/echo.so;\ndaemon off;\n")
    assert "listen 127.0.0.1:8123 backlog=4096;" in conf
    delay = conf[conf.index("location = /delay {") : conf.index("location = /ready")]
    assert "echo_sleep 0.1;" in delay and """echo '{"message": "upstream"}';""" in delay
    assert "location = /ready { return 204; }" in conf and "location = /status { stub_status; }" in conf
    assert f"pid {tmp_path}/nginx.pid;" in conf
    for temp in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        assert f"{temp}_temp_path {tmp_path}/{temp};" in conf.replace("client_body_temp_path", "body_temp_path")


def test_the_echo_module_is_the_first_place_that_has_it_and_none_is_an_error_naming_the_packages(tmp_path, monkeypatch):
    """find_echo_module takes the first listed path that is a file; with none, the error names the Debian packages
    and --upstream-url."""
    first, second = tmp_path / "a.so", tmp_path / "b.so"
    monkeypatch.setattr(upstream, "ECHO_MODULES", (str(first), str(second)))
    with pytest.raises(MissingBinaryError) as info:
        find_echo_module()
    assert "apt-get install nginx-light libnginx-mod-http-echo" in str(info.value)
    assert "--upstream-url" in str(info.value)
    second.write_text("")
    assert find_echo_module() == str(second)
    first.write_text("")
    assert find_echo_module() == str(first)


def test_an_upstream_url_nothing_answers_is_an_error_naming_the_option_and_the_fixes():
    """--upstream-url on a port nothing listens on: BackendUnreachable naming the option, the URL and each way out; a
    service serverbench did not start has no pid."""
    url = f"http://127.0.0.1:{free_port()}/delay"
    with pytest.raises(BackendUnreachable) as info:
        connect_upstream(url)
    assert str(info.value).startswith(f"--upstream-url: the upstream {url} did not answer (")
    assert str(info.value).endswith("Start it, fix the URL, or drop --upstream-url to let serverbench start nginx.")
    assert UpstreamService(url).pid is None


def test_on_a_backends_host_nginx_listens_on_its_address(tmp_path):
    """Given a backends host's address the upstream listens there, not on loopback."""
    conf = nginx_conf(8123, tmp_path, "/mods/echo.so", "198.18.0.12")
    assert "listen 198.18.0.12:8123 backlog=4096;" in conf and "127.0.0.1" not in conf
