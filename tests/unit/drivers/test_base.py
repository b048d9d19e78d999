"""Which driver runs a load shape (drivers.base): driver_for and the closed model's choice."""

import pytest


def test_the_closed_driver_is_wrk_unless_oha_is_asked_for_and_can_run_the_shape():
    """--perf-closed-driver oha drives keep-alive closed shapes; requests-per-connection shapes stay on wrk."""
    from serverbench.catalog.shapes import LoadShape
    from serverbench.drivers import driver_for

    assert driver_for(LoadShape(64, 5)).name == "wrk"
    assert driver_for(LoadShape(64, 5), closed="oha").name == "oha"
    assert driver_for(LoadShape(64, 5, requests_per_connection=1), closed="oha").name == "wrk"
    assert driver_for(LoadShape(64, 5), closed="oha", one_url=False).name == "wrk"  # a URL mix, a user's request
    assert driver_for(LoadShape(64, 5, rate=100.0)).name == "oha"


def test_a_locust_shape_runs_on_locust_with_its_workers_and_wrk_takes_the_threads():
    """A shape with workers is the locust driver with that many workers, whatever the closed choice; wrk gets the
    session's threads."""
    from serverbench.catalog.shapes import LoadShape
    from serverbench.drivers import driver_for

    locust = driver_for(LoadShape(8, 5, workers=3), closed="oha")
    assert (locust.name, locust.workers) == ("locust", 3)
    wrk = driver_for(LoadShape(64, 5), threads=6)
    assert (wrk.name, wrk.threads) == ("wrk", 6)


def test_the_closed_choice_wrk_never_looks_for_oha_and_oha_missing_is_an_error(monkeypatch):
    """--perf-closed-driver wrk takes wrk without checking oha; oha asked for but missing raises the missing-binary
    error (only auto falls back to wrk, saying why)."""
    from serverbench.drivers.base import closed_driver
    from serverbench.drivers.oha import OhaDriver
    from serverbench.errors import MissingBinaryError

    def missing(self):
        raise MissingBinaryError("oha (the open-model load generator)", fix="cargo install oha --locked")

    monkeypatch.setattr(OhaDriver, "check", missing)
    driver, why = closed_driver("wrk")
    assert (driver.name, why) == ("wrk", None)
    with pytest.raises(MissingBinaryError, match="cargo install oha"):
        closed_driver("oha")
    driver, why = closed_driver("auto")
    assert driver.name == "wrk" and "cargo install oha" in why


def test_with_load_hosts_every_driver_is_given_them():
    """Load hosts: the closed model's driver is the one it would be on one host (oha when chosen, wrk otherwise, as
    the gate's is), locust runs distributed, a load only wrk can send is wrk's across them."""
    from serverbench.catalog.shapes import LoadShape
    from serverbench.drivers.base import driver_for

    places = ("load1", "load2")  # stand-ins: the drivers only keep them
    oha = driver_for(LoadShape(64, 1), closed="oha", places=places)
    assert (oha.name, oha.places) == ("oha", places)
    assert driver_for(LoadShape(64, 1), closed="wrk", places=places).name == "wrk"
    assert driver_for(LoadShape(64, 1, rate=100.0), closed="wrk", places=places).name == "oha"
    assert driver_for(LoadShape(50, 1, workers=0), places=places).places == places
    wrk = driver_for(LoadShape(64, 1), closed="oha", one_url=False, places=places)
    assert (wrk.name, wrk.places) == ("wrk", places)
