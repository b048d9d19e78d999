"""Every backend of the registry implements the whole Service interface the fixtures and the gate call."""

import dataclasses
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from serverbench.backends.base import BACKENDS, Backend, Service
from serverbench.catalog.faults import BACKEND_NAMES, Fault
from serverbench.config.options import OPTIONS_BY_NAME, resolve
from serverbench.report.reference import backends_table

MEMBERS = sorted({name for name in vars(Service) if not name.startswith("_")} | set(Service.__annotations__))


def missing_members(cls: type) -> list[str]:
    fields = getattr(cls, "__dataclass_fields__", {})
    return [m for m in MEMBERS if not hasattr(cls, m) and m not in fields]


@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_the_service_a_backend_returns_has_every_member_of_the_interface(name):
    """The class start() and connect() return has seed, count, stop, pid, cores, url and kind (an upstream
    without seed() once errored every /upstream perf test)."""
    spec = BACKENDS[name]
    started, connected = (typing.get_type_hints(f)["return"] for f in (spec.start, spec.connect))
    assert started is connected, f"{name}: start() returns {started}, connect() {connected}"
    assert not missing_members(started), f"{name}'s {started.__name__} lacks {missing_members(started)}"


def test_a_service_without_seed_is_caught():
    """The check itself finds a missing method."""

    class Partial:
        url = "x"
        kind = "external"

    assert "seed" in missing_members(Partial)


# Merged from test_backend_registry.py: A backend is one registry entry: its option, gate flag, URL mapping, fault
# name and docs row derive from it.
ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_each_backend_has_its_url_option_and_variable(name):
    """--<name>-url is in the option table with the entry's help, and the apps read SERVERBENCH_<NAME>_URL."""
    spec = BACKENDS[name]
    assert OPTIONS_BY_NAME[f"{name}_url"].help == spec.option_help
    assert spec.url_flag == f"--{name}-url" and spec.env_var == f"SERVERBENCH_{name.upper()}_URL"


def test_the_session_maps_every_backend_to_its_given_url():
    """PerfConfig.backend_urls has one key per backend: the URL given, else None (start one)."""
    config = resolve({"mongo_url": "mongodb://127.0.0.1:27017/"}, {}, ROOT)
    assert config.backend_urls == {
        name: ("mongodb://127.0.0.1:27017" if name == "mongo" else None) for name in BACKENDS
    }


def test_an_entry_reaches_faults_and_docs_rows():
    """The fault grammar and the generated backends table name every backend of the registry."""
    assert BACKEND_NAMES == tuple(BACKENDS)
    assert Fault.parse("kill-mongo@1s").backend == "mongo"
    rows = backends_table().splitlines()[2:]
    assert [row.split("|")[1].strip(" `") for row in rows] == list(BACKENDS)


def test_an_option_url_is_checked_against_the_entry_schemes(tmp_path):
    """A URL whose scheme the entry does not accept is a usage error naming the expected form."""
    with pytest.raises(Exception, match="redis://127.0.0.1:PORT"):
        resolve({"redis_url": "http://127.0.0.1:6379/"}, {}, tmp_path)


def test_reading_the_registry_imports_no_backend_module():
    """The entries are data: the backend modules (and their client libraries) load on first start/connect."""
    assert all(dataclasses.is_dataclass(b) and isinstance(b, Backend) for b in BACKENDS.values())
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, serverbench.config.options; "
            "print(sorted(m for m in sys.modules if m.startswith('serverbench.backends.')))",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.stdout.strip() == "['serverbench.backends.base']", done.stderr
