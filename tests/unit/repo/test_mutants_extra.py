"""benchmarks/mutants_extra.py: docs/lab/mutation.md's figures are rendered from its results file, and the mutants it
makes are of the kinds it names."""

from __future__ import annotations

from tests.unit.repo.benchmark_scripts import ROOT, script, stale_renders


def _script():
    return script("mutants_extra.py")


def test_the_committed_figures_are_the_rendered_ones():
    """Rendering docs/lab/mutation.md from benchmarks/results/mutants-extra.json changes nothing: no figure in its block
    was typed by hand or left behind by a newer run."""
    stale = stale_renders(_script())
    assert not stale, f"{stale}: run `python benchmarks/mutants_extra.py render` and commit the result"


def test_the_mutants_replace_a_call_drop_a_tuple_element_or_a_key_field():
    """judge/signals' mutants include a call replaced by its argument; records/schema's a field dropped from the
    result's key; every mutant compiles and differs from the source; none changes an error's words."""
    script = _script()
    signals = script.mutants("judge/signals.py")
    schema = script.mutants("records/schema.py")
    assert any(m.kind == "call" and m.after == "(rate)" for m in signals)  # judged_signals(rate) -> (rate)
    assert any(m.kind == "key" and m.after == "f'{self.test}::{cell}/{self.workload}/'" for m in schema)
    assert any(m.kind == "tuple" for m in schema)
    source = (ROOT / "src" / "serverbench" / "records" / "schema.py").read_bytes()
    assert all(m.source != source for m in schema)
    assert not any("Error(" in m.before for m in signals + schema)
