"""Slow clients as a shape modifier: the label grammar, their record, their summary (pure, no server)."""

import itertools
import json

import pytest

from serverbench.catalog.shapes import SLOW_KINDS, LoadShape, from_label
from serverbench.errors import ConfigError
from serverbench.measure.trials.slowclients import Connection, request_head, slowloris_bytes, summary
from serverbench.records.schema import Result, SlowClientReport
from tests.unit.sample_records import result


@pytest.mark.parametrize(
    "label",
    [
        "c64",
        "r200",
        "c64-rpc1",
        "c8-ramp2",
        "u50-w2",
        "c16+idle16",
        "c16+slowloris8",
        "c16-rpc1+keepalive4",
        "r500+partial2",
        "u10-w0+idle3",
    ],
)
def test_labels_read_back_into_the_shape_they_name(label):
    """from_label is the inverse of LoadShape.label, slow clients included."""
    assert from_label(label, duration=3).label == label
    assert from_label(label, duration=3).duration == 3


def test_a_slow_label_sets_the_kind_and_count_beside_the_load():
    """c16+idle8: 16 connections of load, 8 idle clients held beside them."""
    shape = from_label("c16+idle8")
    assert (shape.connections, shape.slow_clients, shape.slow_kind) == (16, 8, "idle")
    assert LoadShape(16, slow_clients=8, slow_kind="idle") == shape


@pytest.mark.parametrize(
    "label, text",
    [
        ("x16", "cannot read 'x16'"),
        ("c16-rpc1-rpc2", "cannot read 'rpc2'"),
        ("c16-w2", "u<users>-w<workers>, both parts together"),
        ("c16+sleepy4", "kind must be one of slowloris, idle, partial, keepalive, got 'sleepy'"),
        ("c16+idle0", "slow kind 'idle' given without a number of slow clients"),
        ("c0+idle4", "connections must be a whole number >= 1"),
    ],
)
def test_unreadable_labels_name_the_part_and_the_grammar(label, text):
    """Every bad label is a ConfigError saying what was found (the grammar follows an unreadable part)."""
    with pytest.raises(ConfigError) as info:
        from_label(label)
    assert text in str(info.value) and label in str(info.value)


@pytest.mark.parametrize(
    "shape, text",
    [
        (LoadShape(8, slow_clients=-1, slow_kind="idle"), "slow clients must be a whole number >= 0"),
        (LoadShape(8, slow_clients=4), "kind must be one of"),
        (LoadShape(8, slow_kind="idle"), "given without a number of slow clients"),
        (LoadShape(8, slow_clients=True, slow_kind="idle"), "slow clients must be a whole number >= 0"),
    ],
)
def test_impossible_slow_clients_are_problems(shape, text):
    """A negative count, a count without a kind, a kind without a count are refused."""
    assert any(text in p for p in shape.problems())


def test_every_kind_is_described():
    """The kinds the grammar accepts each say what such a client does."""
    assert set(SLOW_KINDS) == {"slowloris", "idle", "partial", "keepalive"}
    assert all(SLOW_KINDS.values())


def test_slowloris_sends_endless_headers_a_byte_at_a_time():
    """The request line, Host, then X-Slow-n headers without the blank line that ends them."""
    sent = b"".join(itertools.islice(slowloris_bytes("127.0.0.1", "/json"), 80))
    assert sent.startswith(request_head("127.0.0.1", "/json") + b"X-Slow-1: a\r\nX-Slow-2: a\r\n")
    assert b"\r\n\r\n" not in sent
    assert all(len(b) == 1 for b in itertools.islice(slowloris_bytes("h", "/"), 50))


def test_summary_counts_opened_dropped_and_answers():
    """Opened vs refused, each drop timed from its own open, what the server said before dropping."""
    conns = [Connection(0.1, 30.1, "408"), Connection(0.2, 2.2, ""), Connection(0.3, None, ""), Connection()]
    report = summary("idle", conns, window_s=35.0)
    assert (report.asked, report.opened, report.refused, report.held) == (4, 3, 1, 1)
    assert report.dropped_s == pytest.approx((2.0, 30.0)) and dict(report.answers) == {"408": 1}


def test_slow_client_facts_survive_the_record():
    """A result with slow clients writes them (shape fields and facts) and reads them back."""
    import dataclasses

    shape = from_label("c16+idle16", duration=3)
    slow = SlowClientReport("idle", 16, 16, (2.0, 2.1), 4.2, {"400": 2})
    res = dataclasses.replace(result("t::v/a/json/c16", 1000.0), shape=shape, slow_clients=slow)
    rec = json.loads(json.dumps(res.to_record()))
    assert rec["shape"]["label"] == "c16+idle16" and rec["key"].endswith("/json/c16+idle16")
    assert rec["slow_clients"] == {
        "kind": "idle",
        "asked": 16,
        "opened": 16,
        "held": 14,
        "dropped": 2,
        "refused": 0,
        "dropped_s": [2.0, 2.1],
        "window_s": 4.2,
        "answers": {"400": 2},
    }
    back = Result.from_record(rec)
    assert back.shape == shape and back.slow_clients == slow


def test_records_without_slow_clients_still_load():
    """A schema-2 record written before slow clients existed reads as a shape without them."""
    rec = result("t::v/a/json/c64", 1000.0).to_record()
    assert "slow_clients" not in rec
    for key in ("slow_clients", "slow_kind"):
        del rec["shape"][key]
    back = Result.from_record(rec)
    assert back.shape == LoadShape(64, 5) and back.slow_clients is None


def test_a_malformed_slow_client_record_is_a_value_or_type_error():
    """Bad facts are refused the way every other bad record part is (the readers name the file)."""
    rec = result("t::v/a/json/c64", 1000.0).to_record()
    with pytest.raises((KeyError, TypeError, ValueError)):
        Result.from_record({**rec, "slow_clients": {"kind": "idle", "asked": "x"}})
    with pytest.raises(ValueError, match="kind must be one of"):
        Result.from_record({**rec, "shape": {**rec["shape"], "slow_clients": 3, "slow_kind": "nap"}})


def test_perf_slow_clients_multiplies_every_shape():
    """--perf-slow-clients none,idle16 gives each shape a plain test and one beside 16 idle connections;
    an unknown kind is refused naming the option's grammar."""
    import pytest

    from serverbench.config.options import _slow_list

    assert _slow_list("none,idle16,slowloris8") == (None, ("idle", 16), ("slowloris", 8))
    for bad in ("lazy4", "idle", "idle0", ""):
        with pytest.raises(ValueError, match="idle16|expected"):
            _slow_list(bad)
