"""The live progress line of a perf session: what it says and how long is left.  Pure: no terminal here.

serverbench  cell 6/21  gunicorn-sync-w2/flask redis c64  warm-up round 1  ~2 min 40 s left
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.text import Text


@dataclass(frozen=True)
class Status:
    index: int  # the running cell, 1-based
    total: int
    cell: str
    phase: str
    left_s: float | None


def phase_text(phase: str, round: int = 0) -> str:
    """What the measuring code reported, for people: "warm-up round 2", "measure", "start"."""
    if phase == "warm-up":
        return f"warm-up round {round}" if round else "warm-up"
    if phase == "measure" and round > 1:
        return f"measure (replicate {round})"
    return phase


def clock(seconds: float) -> str:
    """45 s, 3 min 20 s, 1 h 05 min."""
    s = max(0, int(round(seconds)))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def time_left(planned: Sequence[float], finished: int, spent_finished: float, spent_current: float) -> float:
    """Seconds left: the planned seconds of the cells not yet finished, scaled by how long the finished
    ones took against their plan (so server starts and slow warm-ups are learnt as the session runs)."""
    done_plan = sum(planned[:finished])
    ratio = spent_finished / done_plan if finished and done_plan > 0 else 1.0
    current = max(planned[finished] * ratio - spent_current, 0.0) if finished < len(planned) else 0.0
    return current + ratio * sum(planned[finished + 1 :])


def planned_seconds(
    warmup_s: int, warmup_rounds: int, duration_s: int, around_s: int, replicates: int, start_s: float = 2.0
) -> float:
    """What one cell should take: its warm-up rounds, measured window and the load its driver runs around the window
    in the same run (oha's lead-in and trail) per replicate, plus a server start."""
    return replicates * (warmup_s * warmup_rounds + duration_s + around_s) + start_s


def render(status: Status, width: int, colour: bool = True) -> str:
    """The line, cut to ``width`` columns (with an ellipsis), ANSI-styled when ``colour``."""
    left = "" if status.left_s is None else f"~{clock(status.left_s)} left"
    text = Text.assemble(
        ("serverbench", "bold"),
        "  ",
        f"cell {status.index}/{status.total}",
        "  ",
        (status.cell, "cyan"),
        "  ",
        (status.phase, "yellow"),
        "  ",
        left,
    )
    text.truncate(max(width, 1), overflow="ellipsis")
    out = io.StringIO()
    console = Console(
        file=out,
        width=max(width, 1),
        force_terminal=colour,
        no_color=not colour,
        color_system="standard" if colour else None,
        legacy_windows=False,
    )
    console.print(text, end="", no_wrap=True, overflow="ellipsis", crop=True, soft_wrap=False)
    return out.getvalue()
