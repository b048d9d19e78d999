"""The report's sections in page order, each shown only when the records hold its data (report.sections.select; each
section's own shaping is tested in tests/unit/report/sections/test_<section>.py); reading the report's files."""

import json

from serverbench.catalog.shapes import LoadShape
from serverbench.report.inputs import Inputs, load
from tests.unit.report.sample_inputs import KEY, gate_record, ids, run, section, shaped
from tests.unit.sample_records import result


def test_a_single_session_at_one_shape_shows_throughput_the_summary_and_cpu():
    """One connection count, no rates, no reuse, one run: the answer first, then the table; no sweep, ladder, reuse,
    history or A/B section."""
    inputs = Inputs((run("s", [shaped("a", 1000, LoadShape(64)), shaped("b", 2000, LoadShape(64))]),), ())
    assert ids(inputs) == ["throughput", "summary", "cpu"]


def test_nothing_to_show_gives_no_sections():
    """A results file with no results and no failures has no section at all."""
    assert ids(Inputs((run("s", []),), ())) == []


def test_load_tells_results_decisions_and_cost_apart(tmp_path):
    """A results file (with cost records) and a gate decision are recognised; the cost shows in the cpu section."""
    rec = result(KEY.format("a"), 1000).to_record()
    cost = {
        "kind": "cost",
        "variant": "a",
        "app": "flask",
        "workload": "json",
        "requests": 200,
        "instructions": 50_000_000,
        "verdict": {"status": "pass"},
    }
    (tmp_path / "r.json").write_text(
        json.dumps(
            {
                "schema": 2,
                "created": "2026-11-10T00:00:00+00:00",
                "machine": {"id": "m1"},
                "results": [rec],
                "cost": [cost],
            }
        )
    )
    (tmp_path / "g.json").write_text(json.dumps(gate_record()))
    inputs = load([tmp_path])
    assert len(inputs.results) == 1 and len(inputs.decisions) == 1 and inputs.costs[0].per_request == 250_000
    counted = [c for c in section(inputs, "cpu").charts if "instructions" in c.axis.label]
    assert counted[0].bars[0].value == 250_000
