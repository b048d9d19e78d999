from pathlib import Path

import pytest

from serverbench.catalog.faults import Fault
from serverbench.catalog.matrix import select
from serverbench.config.options import OPTIONS, Thresholds, resolve, resolve_thresholds
from serverbench.errors import ConfigError

ROOT = Path("/project")


def test_defaults_when_nothing_is_set():
    """With no command line and no ini, every option takes its declared default."""
    config = resolve({}, {}, ROOT)
    assert config.duration == 2 and config.warmup == 1 and config.connections == (64,)
    assert config.thresholds == Thresholds(0.30, 0.01)
    assert config.baseline_dir == ROOT / "baselines"


def test_command_line_beats_ini_beats_default():
    """A value on the command line wins over ini, and ini wins over the default."""
    config = resolve({"perf_duration": "7"}, {"perf_duration": "3", "perf_warmup": "4"}, ROOT)
    assert config.duration == 7
    assert config.warmup == 4


def test_zero_survives_precedence():
    """A warm-up of 0 on the command line is kept, not replaced by the ini value (is-not-None, not `or`)."""
    config = resolve({"perf_warmup": "0"}, {"perf_warmup": "4"}, ROOT)
    assert config.warmup == 0


def test_every_bad_value_is_reported_at_once():
    """All invalid settings appear in one error, each naming its flag or ini key and the accepted range."""
    with pytest.raises(ConfigError) as info:
        resolve({"perf_duration": "0", "perf_tolerance": "20%"}, {"perf_connections": "64,x"}, ROOT)
    text = str(info.value)
    assert "--perf-duration='0'" in text and "from 1 to 3600" in text
    assert "--perf-tolerance='20%'" in text and "such as 0.2" in text
    assert "ini key perf_connections" in text


def test_tolerance_must_be_a_fraction_below_one():
    """A tolerance of 1 or more would make every result pass, so it is refused."""
    with pytest.raises(ConfigError, match=r"\[0.0, 1.0\)"):
        resolve({"perf_tolerance": "1.5"}, {}, ROOT)


def test_connections_accept_a_list():
    """--perf-connections takes a comma-separated list of counts."""
    assert resolve({"perf_connections": "2, 64,256"}, {}, ROOT).connections == (2, 64, 256)


@pytest.mark.parametrize("url", ["http://10.0.0.5:8080", "http://example.com:80", "ftp://127.0.0.1:1"])
def test_target_must_be_loopback_http(url):
    """Load only ever goes to loopback: any other --perf-target is refused with the reason."""
    with pytest.raises(ConfigError, match="perf-target"):
        resolve({"perf_target": url}, {}, ROOT)


def test_loopback_targets_are_accepted():
    """127.0.0.0/8, ::1 and localhost are valid targets and Redis URLs."""
    config = resolve({"perf_target": "http://[::1]:8080/", "redis_url": "redis://localhost:6379/0"}, {}, ROOT)
    assert config.target == "http://[::1]:8080"
    assert config.backend_urls["redis"] == "redis://localhost:6379/0"


def test_marker_overrides_session_thresholds():
    """@pytest.mark.perf(tolerance=...) beats the session value; an absent key keeps it."""
    session = Thresholds(0.3, 0.01)
    assert resolve_thresholds(session, {"tolerance": 0.1}) == Thresholds(0.1, 0.01)
    assert resolve_thresholds(session, {"max_error_rate": 0}) == Thresholds(0.3, 0.0)


def test_marker_rejects_unknown_and_malformed_arguments():
    """A typo or a bad value in the marker is an error naming the marker."""
    with pytest.raises(ConfigError, match="unknown argument"):
        resolve_thresholds(Thresholds(0.3, 0.01), {"tolerence": 0.1})
    with pytest.raises(ConfigError, match="@pytest.mark.perf"):
        resolve_thresholds(Thresholds(0.3, 0.01), {"tolerance": "lots"})


def test_select_by_glob_keeps_declaration_order():
    """Globs select names in the order they are declared."""
    names = ["werkzeug", "gunicorn-sync", "gunicorn-gevent", "aiohttp"]
    assert select(names, ["aiohttp", "gunicorn-*"], "variant") == ["gunicorn-sync", "gunicorn-gevent", "aiohttp"]


def test_select_unknown_name_lists_known_ones():
    """A pattern that matches nothing is an error listing what exists."""
    with pytest.raises(ConfigError, match="unknown variant 'tornado'.*known variants: werkzeug, aiohttp"):
        select(["werkzeug", "aiohttp"], ["tornado"], "variant")


def test_each_option_has_flag_ini_key_and_help():
    """Every option is declared once with a flag, an ini key and a help text."""
    for option in OPTIONS:
        assert option.flag == "--" + option.name.replace("_", "-")
        assert option.help.strip()


def test_target_pid_needs_a_target():
    """--perf-target-pid alone is refused: it only describes a --perf-target server."""
    with pytest.raises(ConfigError, match="needs --perf-target"):
        resolve({"perf_target_pid": "123"}, {}, ROOT)


def test_command_line_paths_are_relative_to_the_invocation_directory():
    """--perf-json is relative to where pytest was run; ini paths are relative to rootdir."""
    config = resolve({"perf_json": "out.json"}, {"perf_baseline_dir": "b"}, ROOT, cwd=Path("/project/sub"))
    assert config.json_path == Path("/project/sub/out.json")
    assert config.baseline_dir == Path("/project/b")


def test_app_setup_is_a_shell_command_and_an_empty_one_is_refused():
    """perf_app_setup keeps the command as given (stripped); a blank one names the form to write."""
    config = resolve({}, {"perf_app_setup": "  flask --app todo.app init-db  "}, Path("/tmp"))
    assert config.app_setup == "flask --app todo.app init-db"
    assert resolve({}, {}, Path("/tmp")).app_setup is None
    with pytest.raises(ConfigError, match="perf-app-setup.*expected a shell command"):
        resolve({"perf_app_setup": "   "}, {}, Path("/tmp"))


def test_option_resolves_and_must_fall_inside_the_window():
    """--perf-fault resolves to a Fault; one later than the window is a usage error naming both options."""
    assert resolve({"perf_fault": "kill-redis@1s"}, {}, Path("/p")).fault == Fault("kill", "redis", 1.0)
    assert resolve({}, {}, Path("/p")).fault is None
    with pytest.raises(ConfigError, match=r"--perf-fault kill-redis@9s comes 9 s into a 2 s window.*--perf-duration"):
        resolve({"perf_fault": "kill-redis@9s"}, {}, Path("/p"))
    with pytest.raises(ConfigError, match=r"--perf-fault='kill-nginx'.*unknown backend"):
        resolve({"perf_fault": "kill-nginx"}, {}, Path("/p"))


def test_the_hosts_inventory_comes_from_the_flag_the_ini_or_the_environment(tmp_path, monkeypatch):
    """--perf-hosts (relative to where pytest ran) > perf_hosts (relative to the rootdir) > SERVERBENCH_HOSTS; none:
    this machine alone."""
    monkeypatch.delenv("SERVERBENCH_HOSTS", raising=False)
    assert resolve({}, {}, tmp_path).hosts is None
    monkeypatch.setenv("SERVERBENCH_HOSTS", str(tmp_path / "env.toml"))
    assert resolve({}, {}, tmp_path).hosts == tmp_path / "env.toml"
    assert resolve({}, {"perf_hosts": "ini.toml"}, tmp_path).hosts == tmp_path / "ini.toml"
    assert resolve({"perf_hosts": "cli.toml"}, {"perf_hosts": "ini.toml"}, tmp_path, cwd=tmp_path / "sub").hosts == (
        tmp_path / "sub" / "cli.toml"
    )


def test_the_environments_inventory_is_stripped_expanded_and_made_absolute(tmp_path, monkeypatch):
    """hosts_from: SERVERBENCH_HOSTS without its blanks, ~ expanded and a relative path made absolute where it is
    read; blank or absent, none (the other variables are not read)."""
    from serverbench.config.options import hosts_from

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert hosts_from({"SERVERBENCH_HOSTS": " ~/lab.toml "}) == tmp_path / "home" / "lab.toml"
    assert hosts_from({"SERVERBENCH_HOSTS": "rel/h.toml", "PERF_HOSTS": "/other.toml"}) == tmp_path / "rel" / "h.toml"
    assert hosts_from({"SERVERBENCH_HOSTS": "  "}) is None
    assert hosts_from({"PERF_HOSTS": "/other.toml"}) is None


def test_hosts_and_a_loopback_target_are_refused_together():
    """Load hosts cannot reach a loopback --perf-target: one of them, the message says."""
    with pytest.raises(ConfigError, match="give --perf-hosts or --perf-target"):
        resolve({"perf_hosts": "h.toml", "perf_target": "http://127.0.0.1:8000"}, {}, Path("."))
