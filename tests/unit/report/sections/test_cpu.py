"""Server CPU per request (report.sections.cpu): a chart per results file and workload, smallest first, and the
counted instructions per request of the cost records."""

import dataclasses
from pathlib import Path

from serverbench.catalog.shapes import LoadShape
from serverbench.report.charts import Bar, BarChart, Table
from serverbench.report.inputs import Cost, Inputs
from tests.unit.report.sample_inputs import ids, run, section, shaped


def test_server_cpu_is_microseconds_per_good_request_smallest_first():
    """2 s of server CPU over 5,000 and 10,000 good requests is 400 and 200 µs, b first; a saturated generator's bar
    says SAT; a result without server CPU has no bar; another workload has its own chart."""
    a = shaped("a", 1000, LoadShape(64))
    a = dataclasses.replace(a, generator=dataclasses.replace(a.generator, cpu_s=9.5))
    unmeasured = dataclasses.replace(shaped("c", 3000, LoadShape(64)), server_cpu_s=None)
    other = dataclasses.replace(shaped("a", 1000, LoadShape(64)), workload="db")
    s = section(Inputs((run("s", [a, shaped("b", 2000, LoadShape(64)), unmeasured, other]),), ()), "cpu")
    assert s.title == "Server CPU per request"
    json, db = s.blocks
    assert json == BarChart(
        "Server CPU per request: json (s)",
        json.axis,
        (Bar("b/flask c64", "server CPU", 200.0), Bar("a/flask c64", "server CPU", 400.0, "SAT")),
    )
    assert db.title == "Server CPU per request: db (s)" and [b.value for b in db.bars] == [400.0]


def test_counted_costs_are_a_chart_per_file_and_workload_with_failed_verdicts_noted():
    """Cost records give instructions per request by variant/app, smallest first, a fail noted and a pass not; the
    title says the counted cost is shown."""
    costs = (
        Cost(Path("s.json"), "a", "flask", "json", 250_000.0, "fail"),
        Cost(Path("s.json"), "b", "", "json", 200_000.0, "pass"),
    )
    s = section(Inputs((run("s", [shaped("a", 1000, LoadShape(64))]),), (), costs), "cpu")
    assert s.title == "Server CPU per request and counted cost"
    counted = s.blocks[-3]
    assert counted.title == "Counted instructions per request: json (s)"
    assert [(b.label, b.group, b.value, b.note) for b in counted.bars] == [
        ("b", "instructions", 200_000.0, ""),
        ("a/flask", "instructions", 250_000.0, "fail"),
    ]


def test_no_server_cpu_and_no_cost_gives_no_section():
    """Results that carry no server CPU and no cost records show no cpu section."""
    unmeasured = dataclasses.replace(shaped("a", 1000, LoadShape(64)), server_cpu_s=None)
    assert "cpu" not in ids(Inputs((run("s", [unmeasured]),), ()))


def test_counted_system_calls_are_a_table_and_absent_ones_say_why():
    """Each count's system calls per request (vDSO calls left out), socket bytes, connections and memory kept;
    a record without them says why in place of the figures, never zero."""
    system = {
        "calls": {"clock_gettime": 11.0, "recvfrom": 1.0, "clock_nanosleep": 1.0},
        "sent": 173.0,
        "received": 39.0,
    }
    costs = (
        Cost(Path("s.json"), "a", "flask", "json", 250_000.0, "fail", {**system, "connections": 1.0}, "", 1065.0),
        Cost(Path("s.json"), "b", "", "json", 200_000.0, "pass", None, "not recorded", None, "not recorded"),
    )
    s = section(Inputs((run("s", [shaped("a", 1000, LoadShape(64))]),), (), costs), "cpu")
    table = s.blocks[-2]
    assert isinstance(table, Table)
    counted, old = ([c.text for c in row] for row in table.rows)
    assert counted == [
        "a/flask json",
        "2.00",
        "recvfrom 1.00, clock_nanosleep 1.00",
        "173",
        "39",
        "1.000",
        "not followed",
        "1,065 B",
    ]
    assert old[1] == "absent: not recorded" and old[-1] == "absent: not recorded"


def test_counted_system_calls_name_the_calls_on_each_peers_sockets_and_how_memory_was_read():
    """A count whose peers were followed shows its calls per request on each peer's sockets, most first (vDSO ones
    left out); memory kept read without valgrind says over how many requests."""
    peer = {"sent": 0.0, "received": 0.0, "connections": 0.0}
    system = {
        "calls": {"recvfrom": 3.0, "sendto": 2.0},
        "sent": 300.0,
        "received": 4100.0,
        "connections": 1.0,
        "peers": {
            "clients": {**peer, "calls": {"recvfrom": 1.0, "sendto": 1.0, "accept4": 1.0}},
            "redis": {**peer, "calls": {"recvfrom": 2.0, "sendto": 1.0, "clock_gettime": 4.0}},
        },
    }
    cost = Cost(Path("s.json"), "a", "flask", "redis", 1e6, "pass", system, "", 4.096, "", 1000)
    s = section(Inputs((run("s", [shaped("a", 1000, LoadShape(64))]),), (), (cost,)), "cpu")
    (row,) = s.blocks[-2].rows
    assert [c.text for c in row][-2:] == ["clients 3.00, redis 3.00", "4 B (over 1,000 requests without valgrind)"]
