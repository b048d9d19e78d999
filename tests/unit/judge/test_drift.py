"""Response size drift at its two limits: more than RATIO (1.25x) *and* more than MIN_BYTES (256 bytes) between
the smallest and the largest bytes per response of one endpoint's cells; cells that counted nothing are left out."""

from dataclasses import replace

from serverbench.judge.drift import size_drift
from tests.unit.synthetic import record


def cells(*bytes_per_response, app="flask", requests=10_000):
    """One record of the workload "list" per size, in run order (variants v0, v1, ...)."""
    out = []
    for i, size in enumerate(bytes_per_response):
        r = record(workload="list", variant=f"v{i}")
        out.append(replace(r, app=app, load=replace(r.load, requests=requests, bytes=int(size * requests))))
    return out


def test_a_size_exactly_ratio_times_the_smallest_is_not_drift_and_just_over_it_is():
    """2,000 then 2,500 bytes (1.25x, 500 bytes apart) is not warned; 2,000 then 2,501 is."""
    assert size_drift(cells(2_000, 2_500)) == []
    assert len(size_drift(cells(2_000, 2_501))) == 1


def test_a_difference_of_exactly_min_bytes_is_not_drift_and_one_byte_more_is():
    """500 then 756 bytes (1.5x, 256 bytes apart) is not warned; 500 then 757 is: small pages need both limits."""
    assert size_drift(cells(500, 756)) == []
    assert len(size_drift(cells(500, 757))) == 1


def test_a_large_ratio_of_tiny_responses_is_not_drift():
    """10 then 200 bytes (20x, but 190 bytes: headers) is not warned."""
    assert size_drift(cells(10, 200)) == []


def test_a_cell_that_counted_no_bytes_or_no_requests_is_left_out():
    """A cell whose generator counted no bytes (or served no request) is not the smallest size of the endpoint."""
    assert size_drift(cells(2_000, 0, 2_100)) == []
    assert size_drift(cells(2_000, 2_100) + cells(0, requests=0)) == []


def test_the_warning_names_every_cell_in_run_order_and_the_variant_alone_without_an_app():
    """The warning lists each cell's bytes per response in run order; a cell without an app is its variant."""
    [warning] = size_drift(cells(100_000, 2_000, app=""))
    assert "bytes per response: v0 100,000, v1 2,000)" in warning
    [warning] = size_drift(cells(2_000, 100_000))
    assert "v0/flask 2,000, v1/flask 100,000" in warning


# Merged from test_drift_reset.py: Cells that start from one state: response size drift is judged from the records
# (pure), and a user's perf_app_reset runs in a child interpreter from the app's folder with its environment.
def _sized(variant, workload, bytes_per_response):
    r = record(workload=workload, variant=variant)
    return replace(r, load=replace(r.load, bytes=int(bytes_per_response * r.load.requests)))


def test_growing_listing_is_warned_and_header_differences_are_not():
    """A listing 100x bigger in a later cell is named with every cell's size; 150 bytes of headers are not."""
    results = [
        _sized("waitress-t4", "list", 2_000),
        _sized("gunicorn-sync-w2", "list", 200_000),
        _sized("waitress-t4", "home", 500),
        _sized("gunicorn-sync-w2", "home", 650),
    ]
    warnings = size_drift(results)
    assert len(warnings) == 1
    assert "list changed size" in warnings[0] and "gunicorn-sync-w2/flask 200,000" in warnings[0]
    assert "perf_app_reset" in warnings[0]
