"""What a gate's arms and a bisection's commits serve (serverbench.gate.served), resolved once for both doors: the
reference apps by name, a user's project by its configuration; every mistake named with its fix.  No servers."""

import subprocess
from pathlib import Path

import pytest

from serverbench.catalog.apps import APPS
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.errors import ConfigError
from serverbench.gate.served import DOORS, REQUIRED_VARIANT, served

ROOT = Path(__file__).resolve().parents[3]  # a checkout with apps/ and no perf_app
PROJECT = """
[tool.pytest.ini_options]
perf_app = "shop:app"
perf_app_interface = "wsgi"
perf_app_dir = "src"
perf_app_env = ["GREETING=hi"]
perf_app_backends = ["redis=SHOP_REDIS"]
perf_app_setup = "touch ready"
perf_app_reset = "shop:reset"
perf_cost_requests = 40
perf_variants = ["waitress-t4", "wsgiref"]
perf_endpoints = ["home GET / contains=Welcome", "create POST /items status=201 body={\\"a\\": 1}"]
"""


def _project(folder: Path) -> Path:
    (folder / "src").mkdir(parents=True)
    (folder / "pyproject.toml").write_text(PROJECT)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return folder


def test_a_reference_cell_is_the_variant_its_app_and_the_json_workload_by_default():
    """--variant alone: its own reference app on json, from the checkout's apps/; --app and --workload pick others."""
    first = served(ROOT, "aiohttp", None, None, (), "gate")
    assert (first.cell.variant, first.cell.app, first.workloads) == (
        registry()["aiohttp"],
        APPS["aiohttp"],
        (WORKLOADS["json"],),
    )
    assert (first.top, first.app_folder, first.project, first.env, first.backend_vars) == (ROOT, "apps", None, {}, None)
    other = served(ROOT, "werkzeug-threaded", "raw-wsgi", "redis", (), "bisect")
    assert (other.cell.app, other.workloads, other.backends) == (APPS["raw-wsgi"], (WORKLOADS["redis"],), ["redis"])
    assert first.backends == [] and first.server_env({"redis": "redis://x"}) == {}


def test_check_names_lists_every_unknown_name():
    """An unknown variant, app and workload, and an endpoint outside a project, are all named in one error."""
    with pytest.raises(ConfigError) as err:
        served(ROOT, "nope", "nada", "zilch", ("home",), "gate")
    lines = str(err.value).splitlines()
    assert [line.split(";")[0].split(",")[0] for line in lines] == [
        "unknown variant 'nope'",
        "unknown app 'nada'",
        "--endpoint names a perf_app endpoint",
        "unknown workload 'zilch'",
    ]
    assert lines[2].endswith(
        f"{ROOT} has no pytest configuration naming perf_app: use --workload, or run the gate in your project"
    )


def test_unknown_names_are_listed_with_every_known_one():
    """The error for an unknown variant, app or workload lists the known names, comma-separated."""
    with pytest.raises(ConfigError) as err:
        served(ROOT, "nope", "nada", "zilch", (), "gate")
    text = str(err.value)
    for known in (registry(), APPS, WORKLOADS):
        assert ", ".join(known) in text


def test_a_reference_cell_without_a_variant_says_what_is_required():
    """No --variant outside a project: the argument is required, or a project naming perf_app."""
    with pytest.raises(ConfigError) as err:
        served(ROOT, None, None, None, (), "bisect")
    assert str(err.value) == f"the following arguments are required: {REQUIRED_VARIANT}"


def test_a_project_serves_its_app_with_its_settings(tmp_path):
    """In a project naming perf_app: its app from perf_app_dir on its endpoints by name, under the first of
    perf_variants (or the one named), with its environment, backends' names, setup, reset and counted requests."""
    project = _project(tmp_path / "shop")
    found = served(project, None, None, None, (), "gate")
    assert [w.name for w in found.workloads] == ["home", "create"]
    assert found.cell.app.name == "shop" and found.cell.variant.name in ("waitress-t4", "wsgiref")
    assert (found.top, found.app_folder) == (project.resolve(), "src")
    assert found.app_dir(found.top) == project.resolve() / "src"
    assert found.env["GREETING"] == "hi" and found.backend_vars == {"redis": "SHOP_REDIS"}
    assert found.backends == ["redis"] and found.server_env({"redis": "redis://x"})["SHOP_REDIS"] == "redis://x"
    assert (found.setup, found.reset.text, found.cost_requests) == ("touch ready", "shop:reset", 40)
    one = served(project, "wsgiref", None, None, ("create",), "bisect")
    assert [w.name for w in one.workloads] == ["create"] and one.cell.variant.name == "wsgiref"


@pytest.mark.parametrize("door", list(DOORS))
def test_a_projects_mistakes_are_named_by_the_door(tmp_path, door):
    """--app or --workload in a project say what the door does with the app; an unknown endpoint or a variant not
    of perf_variants are named with the known ones, the same whichever door."""
    project = _project(tmp_path / "shop")
    name, verb = DOORS[door]
    with pytest.raises(ConfigError, match=f"names perf_app = shop:app: {name} {verb} your app; name its endpoints"):
        served(project, None, "flask", None, (), door)
    with pytest.raises(ConfigError, match="unknown endpoint.*'lst'.*home, create"):
        served(project, None, None, None, ("lst",), door)
    with pytest.raises(ConfigError, match="--variant 'aiohttp' is not a variant of shop:app"):
        served(project, "aiohttp", None, None, (), door)


def test_a_checkout_without_the_app_folder_is_refused_naming_it(tmp_path):
    """The reference apps' checkout without apps/, a base ref without the project's perf_app_dir: each named."""
    with pytest.raises(ConfigError, match=f"^{tmp_path} has no apps/ folder to serve$"):
        served(ROOT, "aiohttp", None, None, (), "gate").app_dir(tmp_path)
    found = served(_project(tmp_path / "shop"), None, None, None, (), "gate")
    with pytest.raises(ConfigError, match="the base ref has no src folder \\(perf_app_dir of .*pyproject.toml\\)"):
        found.app_dir(tmp_path)
