"""Load shapes as data: validation, driver capabilities, the knee of a rate ladder (pure)."""

import pytest

from serverbench.catalog.shapes import Capabilities, LoadShape, check, fd_need, knee, refusal
from serverbench.errors import ConfigError

WRK = Capabilities("wrk", ("closed",), requests_per_connection=True, ramp=False)
OHA = Capabilities("oha", ("open", "closed"), requests_per_connection=False, ramp=False)


def test_shape_labels_name_the_model_and_reuse():
    """A closed shape is labelled by connections, an open one by rate, reuse and ramp when set."""
    assert LoadShape(64).label == "c64" and LoadShape(64).model == "closed"
    assert LoadShape(10, rate=200).label == "r200" and LoadShape(10, rate=200).model == "open"
    assert LoadShape(64, requests_per_connection=1).label == "c64-rpc1"


@pytest.mark.parametrize(
    "shape, text",
    [
        (LoadShape(0), "connections must be a whole number >= 1"),
        (LoadShape(8, duration=0), "duration must be whole seconds >= 1"),
        (LoadShape(8, rate=-5), "rate must be requests per second > 0"),
        (LoadShape(8, requests_per_connection=0), "requests per connection must be >= 1"),
        (LoadShape(8, duration=5, ramp=5), "ramp must be seconds in [0, duration)"),
    ],
)
def test_impossible_shapes_are_refused_with_the_reason(shape, text):
    """0 connections, no duration, a negative rate, 0 requests per connection, a ramp as long as the run."""
    with pytest.raises(ConfigError, match="impossible load shape") as info:
        check([shape], WRK)
    assert text in str(info.value)


def test_a_rate_needs_an_open_model_driver():
    """wrk cannot hold a request rate: the shape is refused naming what it needs."""
    reason = refusal(WRK, LoadShape(10, rate=100))
    assert "wrk runs the closed model only" in reason and "needs an open-model driver" in reason
    assert refusal(OHA, LoadShape(10, rate=100)) is None


def test_drivers_refuse_what_they_cannot_do():
    """oha cannot cap requests per connection; nobody here ramps but locust."""
    assert "cannot limit requests per connection" in refusal(OHA, LoadShape(8, requests_per_connection=10))
    assert "use locust for ramps" in refusal(WRK, LoadShape(8, duration=5, ramp=2))
    assert refusal(WRK, LoadShape(8, requests_per_connection=10)) is None


def test_every_problem_is_listed_at_once():
    """Several bad shapes in a sweep are reported together."""
    with pytest.raises(ConfigError) as info:
        check([LoadShape(0), LoadShape(8, rate=50)], WRK)
    assert "connections must be" in str(info.value) and "needs an open-model driver" in str(info.value)


def test_fd_need_counts_both_ends_of_each_connection():
    """A 5,000-client sweep needs about 10,256 open files in this process tree."""
    assert fd_need([2, 64, 5000]) == 10_256


def test_knee_is_where_p99_triples_or_the_server_falls_behind():
    """Flat latency until 800 req/s; at 1,000 p99 triples: the knee is 1,000. A shortfall also marks it."""
    rates = [20, 100, 400, 800, 1000, 2000]
    assert knee(rates, [2.0, 2.1, 2.4, 4.0, 9.0, 500.0], rates) == 1000
    assert knee(rates, [2.0] * 6, [20, 100, 400, 700, 900, 950]) == 800
    assert knee(rates, [2.0] * 6, rates) is None
