"""A user's project resolves without pytest: its app, its endpoints by name, the app's folder in another
checkout.  No servers."""

import subprocess
import sys

import pytest

from serverbench.errors import ConfigError
from serverbench.gate import user
from tests.unit.config.test_project import TOML


def test_user_project_endpoints_by_name(tmp_path):
    """A git project naming perf_app resolves without pytest; --endpoint picks by name, unknown names are listed."""
    (tmp_path / "pyproject.toml").write_text(TOML)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    found = user.project(tmp_path)
    assert found.app.target.text == "shop:app" and found.git_top == tmp_path.resolve()
    assert [w.name for w in user.endpoints(found.app, [])] == ["home", "create"]
    assert [w.spec.request.method for w in user.endpoints(found.app, ["create"])] == ["POST"]
    with pytest.raises(ConfigError, match="unknown endpoint.*'lst'.*home, create"):
        user.endpoints(found.app, ["lst"])


def test_gate_does_not_import_pytest():
    """The gate command, its workflow and the project reader load without pytest."""
    code = (
        "import sys, serverbench.cli.gate, serverbench.cli.bisect, serverbench.gate.workflow, serverbench.gate.user; "
        "sys.exit('_pytest' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
