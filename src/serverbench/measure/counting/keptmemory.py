"""Memory kept per request, read from a run of the counted cell without valgrind.

The A/B gate counts 50 requests a run: over so few, a heap still settling after the warm-up absorbs a leak
(judge/system.py judges memory kept over 200 requests or more), and each counted request costs tens of
milliseconds under valgrind, as does each request sent after the window with counting off (gunicorn sync on flask's
``/json``: 400 such requests took 13 s).  The same server started without valgrind serves a thousand requests in
about a second, so the gate reads memory kept there: the cell's server, started as the count starts it (its
arm's interpreter, app folder and environment), warmed up worker by worker as a count is (:func:`.cost.run_window`),
then ``requests`` requests back to back over one keep-alive connection, one worker serving and the others stopped.
What the program kept is the growth of its processes' anonymous memory (``Anonymous`` in
``/proc/<pid>/smaps_rollup``: heap, malloc arenas, pymalloc's arenas, stacks; without valgrind every anonymous page
is the program's) from before the first request to after the last, once every thread is blocked.
"""

from __future__ import annotations

from dataclasses import replace

from ...errors import ServerbenchError
from ...processes.executors import free_port
from ...records.cost import CostRecord
from ..serving.servers import start_variant
from .cost import CostPlan, Window, run_window

REQUESTS = 1000  # 1 KB a request kept is 1 MB over them, beside a settling heap's tens of KB
WARMUP = 200  # as pytest -m cost warms up: the heap past its first growth


def anonymous(pid: int) -> int | None:
    """Bytes of anonymous memory resident in ``pid`` now (``Anonymous`` of ``smaps_rollup``); None when gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Anonymous:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def measure_kept(plan: CostPlan, requests: int = REQUESTS, warmup: int = WARMUP) -> tuple[float | None, str]:
    """Bytes per request the cell's processes kept over ``requests`` requests without valgrind, or None and why.
    The server is always stopped."""
    run = replace(plan, requests=requests, warmup=max(plan.warmup, warmup))
    marks: list[dict[int, int | None]] = []

    def mark(pids: list[int]) -> None:
        marks.append({pid: anonymous(pid) for pid in pids})

    port = free_port()
    server = start_variant(
        run.variant,
        apps_dir=run.apps_dir,
        app=run.app,
        port=port,
        env=run.env,
        python=run.python,
    )
    try:
        run_window(run, server.process.pid, port, Window(on=mark, off=mark), paced=False)
    finally:
        server.stop(at_once=True)
    before, after = marks
    if set(before) != set(after) or any(v is None for v in (*before.values(), *after.values())):
        return None, "a server process was gone before its memory was read again (smaps_rollup)"
    return sum(after[p] - before[p] for p in before) / requests, ""


def with_kept(record: CostRecord, plan: CostPlan, requests: int = REQUESTS) -> CostRecord:
    """``record`` (``plan``'s count) with its memory kept read over ``requests`` requests without valgrind instead;
    where that run fails (the server would not start, a request failed) the figure is absent with the reason, and
    the count stands."""
    try:
        kept, absent = measure_kept(plan, requests)
    except ServerbenchError as exc:
        kept, absent = None, f"the run without valgrind that reads memory kept failed: {exc}"
    return replace(record, kept_per_request=kept, kept_absent=absent, kept_requests=requests, kept_uninstrumented=True)
