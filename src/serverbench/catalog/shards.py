"""Shards: one job's deterministic share of the selected cells, when one machine is not enough.

``--perf-shard K/N`` runs the K-th of N shares; N jobs (on N machines, or N CI runners) run the
whole selection between them, each cell exactly once.  The share is a round robin over the
sorted test ids: every cell of a session measures for the same warm-up and duration, so equal
counts are equal cost to within server start-up, and neighbours in sort order (the cells of
one variant) land in different shards, which spreads the variants that start slowly.  Pure
logic: the same ids give the same shares on every machine and in every run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_FORM = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class Shard:
    """The ``index``-th (from 1) of ``count`` shares."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.count:
            raise ValueError(f"expected K/N with 1 <= K <= N, such as 2/4, got {self.label}")

    @classmethod
    def parse(cls, raw: str) -> Shard:
        """``"2/4"`` -> Shard(2, 4); anything else is a ValueError that shows the expected form."""
        match = _FORM.match(str(raw))
        if match is None:
            raise ValueError(f"expected K/N (this job's shard K of N, 1 <= K <= N, such as 2/4), got {raw!r}")
        return cls(int(match.group(1)), int(match.group(2)))

    @property
    def label(self) -> str:
        return f"{self.index}/{self.count}"


def share(ids: Sequence[str], shard: Shard) -> list[str]:
    """The ids this shard runs, in their given order.

    Round robin over the sorted ids: each id is in exactly one of the ``count`` shards and the
    shards' sizes differ by at most one.
    """
    ordered = sorted(ids)
    mine = set(ordered[shard.index - 1 :: shard.count])
    return [i for i in ids if i in mine]
