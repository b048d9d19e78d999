"""benchmarks/interpreters.py: docs/interpreters.md's measured blocks rendered from its record alone."""

from __future__ import annotations

import json

from tests.unit.repo.benchmark_scripts import script


def test_the_committed_page_is_the_rendered_one():
    """docs/interpreters.md's two blocks are what benchmarks/results/interpreters.json renders (the gated upgrade's
    verdict lines read from its committed decision files)."""
    interpreters = script("interpreters.py")
    record = json.loads(interpreters.OUT.read_text())
    ((page, text),) = interpreters.render(record, write=False).items()
    assert text == page.read_text(), "run `python benchmarks/interpreters.py render` and commit the result"


def test_a_record_without_runs_says_what_was_not_measured():
    """No env run and no gate: each block says so and names the command, never an empty table."""
    interpreters = script("interpreters.py")
    assert interpreters.render_compare({}).startswith("Not measured yet: `benchmarks/interpreters.py run`")
    assert interpreters.render_gate({}) == "Not run yet.\n"


def test_the_gate_block_gives_each_endpoints_verdict_line_from_its_decision_file():
    """The gated upgrade's block holds the command, its exit and time, and one verdict line per decision file."""
    interpreters = script("interpreters.py")
    record = json.loads(interpreters.OUT.read_text())
    block = interpreters.render_gate(record)
    assert block.startswith(f"```sh\n{record['gate']['command']}\n```")
    assert block.count("\n- ") == len(record["gate"]["decisions"]) > 0, block
