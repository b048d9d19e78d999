"""The Play row as data: a JVM app serving part of the contract, refused for the rest (its skip reason: measure/serving/test_servers.py)."""

from pathlib import Path

import pytest

from serverbench.catalog.apps import APPS
from serverbench.catalog.matrix import Cell, every_cell
from serverbench.catalog.variants import VARIANTS, registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.errors import ConfigError
from serverbench.gate.plan import ABPlan, Arm

PLAY = registry()["play-pekko"]


def test_play_serves_only_the_play_app_and_part_of_the_contract():
    """The matrix pairs play-pekko with the play app alone; the app lacks Redis, the upstream and the book site."""
    assert {c.app.name for c in every_cell(VARIANTS) if c.variant is PLAY} == {"play"}
    assert {c.variant.name for c in every_cell(VARIANTS) if c.app.name == "play"} == {"play-pekko"}
    assert APPS["play"].lacks(["json", "redis", "mongo-big", "upstream", "site-search"]) == [
        "redis",
        "upstream",
        "site-search",
    ]
    assert APPS["flask"].lacks(["redis", "site-search"]) == []


def test_the_gate_refuses_a_workload_play_does_not_serve(tmp_path):
    """An A/B plan of play-pekko on /redis is refused with the endpoints it lacks."""
    with pytest.raises(ConfigError) as info:
        ABPlan(
            Cell(PLAY, APPS["play"]),
            WORKLOADS["redis"],
            Arm("base", apps_dir=tmp_path),
            Arm("candidate", apps_dir=tmp_path),
            mode="sequential",
            backend_env={"SERVERBENCH_REDIS_URL": "redis://127.0.0.1:1/0"},
        )
    assert "play serves part of the contract, not redis: pick another workload" in str(info.value)


def test_the_play_command_runs_plays_production_launcher():
    """The command starts ProdServerStart on loopback with the built classes and copied dependencies."""
    argv = PLAY.argv(host="127.0.0.1", port=9000, module="play", apps_dir="/apps")
    assert argv[:3] == ["java", "-Dplay.server.http.address=127.0.0.1", "-Dhttp.port=9000"]
    assert "/apps/play/target/classes:/apps/play/target/dependency/*" in argv
    assert argv[-2:] == ["play.core.server.ProdServerStart", "/apps/play"]
    assert Path(__file__).resolve().parents[3].joinpath("apps", "play", "pom.xml").is_file()
