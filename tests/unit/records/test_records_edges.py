"""What stored A/B records and merged results files mean when read back (issue 22: records.* under mutation
testing): a window's arm and block, measurements extended by later blocks, the gated decisions, no empty cost list."""

import json
from dataclasses import replace
from pathlib import Path

from serverbench.records import results
from serverbench.records.decisions import Measurement, Window
from serverbench.records.results import ResultsFile, Stored
from tests.unit.cli.test_mutation_gate import _decision
from tests.unit.sample_records import result

ARMS = ("base", "candidate")


def test_a_window_reads_back_with_its_arm_phase_and_block():
    """A candidate's fixed-rate window of block 3 keeps all three through JSON (not the schema-1 nodeid guess)."""
    w = Window("candidate", "rate", 3, result("test_throughput::v/a/json/c8", 100.0))
    assert Window.from_record(json.loads(json.dumps(w.to_record()))) == w


def test_later_blocks_extend_every_signal_and_keep_mode_and_rate():
    """Blocks measured later add their pairs after the first ones, a signal only they carry included; the mode, the
    fixed rate and the block count (an unknown count read as 0) carry over."""
    first = Measurement.of("sequential", ARMS, {"throughput": ((1.0, 2.0), (1.5, 2.5))}, (), None, 0, 250.0, 10.0)
    later = Measurement.of(
        "sequential", ARMS, {"throughput": ((3.0,), (3.5,)), "growth": ((0.1,), (0.2,))}, (), 2, 1, 250.0, 5.0
    )
    both = first.plus(later)
    assert both.pairs == {"throughput": ((1.0, 2.0, 3.0), (1.5, 2.5, 3.5)), "growth": ((0.1,), (0.2,))}
    assert (both.mode, both.rate, both.blocks, both.reruns, both.seconds) == ("sequential", 250.0, 2, 1, 15.0)
    assert later.plus(first).blocks == 2 and later.plus(first).pairs["growth"] == ((0.1,), (0.2,))


def test_gated_decisions_are_the_gated_signals_that_were_decided():
    """The gated signals' decisions, in the gated order; a gated name without a decision is left out."""
    d = _decision()
    assert list(d.gated_decisions()) == [k for k in d.gated if k in d.decisions] and d.gated_decisions()
    assert replace(d, gated=(*d.gated, "missing")).gated_decisions() == d.gated_decisions()


def test_a_merged_file_without_cost_records_has_no_cost_list(tmp_path: Path):
    """Merging files with results only writes no "cost" key (readers take its absence as no cost run)."""
    r = result("test_throughput::v/a/json/c8", 100.0)
    f = ResultsFile(Path("s.json"), 2, "2026-11-23T00:00:00+00:00", {"id": "m"}, (Stored(r, None, r.to_record()),), ())
    results.write_merged(tmp_path / "m.json", [f], {"id": "m"}, "0")
    assert "cost" not in json.loads((tmp_path / "m.json").read_text())
