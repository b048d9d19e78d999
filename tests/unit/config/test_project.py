"""The gate reads a project's pytest configuration without pytest, as pytest finds it; the user's gate
resolves endpoints by name.  No servers."""

import subprocess
import sys

import pytest

from serverbench import usergate
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


def test_user_project_endpoints_by_name(tmp_path):
    """A git project naming perf_app resolves without pytest; --endpoint picks by name, unknown names are listed."""
    (tmp_path / "pyproject.toml").write_text(TOML)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    found = usergate.project(tmp_path)
    assert found.app.target.text == "shop:app" and found.git_top == tmp_path.resolve()
    assert [w.name for w in usergate.endpoints(found.app, [])] == ["home", "create"]
    assert [w.spec.request.method for w in usergate.endpoints(found.app, ["create"])] == ["POST"]
    with pytest.raises(ConfigError, match="unknown endpoint.*'lst'.*home, create"):
        usergate.endpoints(found.app, ["lst"])
    assert found.app_dir_in(tmp_path) == tmp_path.resolve()


def test_gate_does_not_import_pytest():
    """The gate command and the project reader load without pytest."""
    code = "import sys, serverbench.cli.gate, serverbench.usergate; sys.exit('_pytest' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
