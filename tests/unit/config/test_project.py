"""The gate reads a project's pytest configuration without pytest, as pytest finds it.  No servers."""

import pytest

from serverbench.config.project import find
from serverbench.errors import ConfigError

TOML = """
[tool.pytest.ini_options]
perf_app = "shop:app"
perf_app_interface = "wsgi"
perf_endpoints = ["home GET / contains=Welcome", "create POST /items status=201 body={\\"a\\": 1}"]
"""


def test_pyproject_list_and_ini_lines_are_read_as_pytest_reads_them(tmp_path):
    """pyproject.toml's TOML list stays a list; tox.ini's [pytest] lines stay a string; pytest.ini wins over both."""
    (tmp_path / "pyproject.toml").write_text(TOML)
    (tmp_path / "tox.ini").write_text("[pytest]\nperf_app = other:app\n")
    sub = tmp_path / "pkg"
    sub.mkdir()
    found = find(sub)
    assert found.path == tmp_path / "pyproject.toml"
    assert found.ini["perf_endpoints"][1] == 'create POST /items status=201 body={"a": 1}'
    (tmp_path / "pytest.ini").write_text("[pytest]\nperf_endpoints =\n    home /\n    list /l\n")
    assert find(sub).ini == {"perf_endpoints": "home /\nlist /l"}


def test_setup_cfg_and_no_configuration(tmp_path):
    """setup.cfg counts with [tool:pytest] only; a folder tree with no configuration is a ConfigError naming the files."""
    (tmp_path / "setup.cfg").write_text("[metadata]\nname = x\n")
    with pytest.raises(ConfigError, match="no pytest configuration found"):
        find(tmp_path)
    (tmp_path / "setup.cfg").write_text("[tool:pytest]\nperf_app = shop:app\n")
    assert find(tmp_path).ini == {"perf_app": "shop:app"}
