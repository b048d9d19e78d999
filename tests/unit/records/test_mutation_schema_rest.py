"""records.schema's smaller readers and writers, pinned where mutation testing found them loose (issue 22): the
replicates' rounding, a schema-1 shape read from its label, a shape's model key, a slow-client report's answers."""

from dataclasses import replace

import pytest

from serverbench.catalog.shapes import LoadShape
from serverbench.records.schema import SlowClientReport, replicated, shape_from_record, shape_record


def _over_3_s(make_result, requests: int):
    r = make_result()
    return replace(r, load=replace(r.load, requests=requests, duration_s=3.0))


def test_replicates_keep_each_rps_and_their_median_to_one_decimal(make_result):
    """2,701, 3,302 and 3,001 requests over 3 s (900.33.., 1100.66.., 1000.33.. rps): stored as 900.3, 1100.7 and
    1000.3, the median 1000.3; not whole numbers, not two decimals."""
    runs = [_over_3_s(make_result, n) for n in (2701, 3302, 3001)]
    reps = replicated(runs).extra["replicates"]
    assert reps["rps"] == [900.3, 1100.7, 1000.3] and reps["rps_median"] == 1000.3


def test_a_schema_1_record_without_a_shape_reads_its_connections_as_the_shape():
    """No "shape" key: the shape is c<connections>, over the window rounded to whole seconds and at least 1."""
    assert shape_from_record({"connections": 64, "duration_s": 5.2}) == LoadShape(64, 5)
    assert shape_from_record({"connections": 8, "duration_s": 0.4}).duration == 1


@pytest.mark.parametrize(
    ("label", "field", "value"),
    [
        ("c64-rpc1", "requests_per_connection", 1),
        ("u50-w2", "workers", 2),
        ("c8-ramp2", "ramp", 2.0),
        ("r200", "rate", 200.0),
    ],
)
def test_a_schema_1_label_is_read_part_by_part(label, field, value):
    """A schema-1 label's dash-separated parts each set their field: rpc, w, ramp, r."""
    shape = shape_from_record({"shape": label, "connections": 64, "duration_s": 5.0})
    assert getattr(shape, field) == value


def test_a_shape_record_names_its_model():
    """The structured shape carries its model under "model" (closed or open), beside its fields and label."""
    assert shape_record(LoadShape(64, 5))["model"] == LoadShape(64, 5).model
    assert shape_record(LoadShape(64, 5, rate=200.0))["model"] == LoadShape(64, 5, rate=200.0).model


def test_a_slow_client_reports_answers_cannot_change_after_it_is_made():
    """The answers mapping is frozen: the caller's dict changing later does not change it, and it refuses writes."""
    given = {"408": 2}
    report = SlowClientReport("idle", 16, 15, (2.5, 1.5), 5.0, given)
    given["408"] = 9
    assert report.answers == {"408": 2} and report.dropped_s == (1.5, 2.5)
    with pytest.raises(TypeError):
        report.answers["400"] = 1
