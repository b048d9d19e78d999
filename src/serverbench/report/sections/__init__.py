"""The report's sections in page order; each is shown only when the records hold its data."""

from __future__ import annotations

from ..charts import Section
from ..inputs import Inputs
from . import ab, connections, cpu, history, interpreters, memory, rates, reuse, summary, throughput

BUILDERS = (
    throughput.build,
    summary.build,
    connections.build,
    rates.build,
    reuse.build,
    cpu.build,
    memory.build,
    interpreters.build,
    ab.build,
    history.build,
)


def select(inputs: Inputs) -> list[Section]:
    """The sections these inputs have data for, in page order."""
    return [s for s in (build(inputs) for build in BUILDERS) if s is not None]
