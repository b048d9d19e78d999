"""Choose a server: docs/choose-a-server.md and its charts, rendered from one committed default run's records.

    # a whole default run's records (--perf-json), made on the measuring machine and committed compressed:
    ./run perf --perf-json choose.json && gzip -9 -n -c choose.json > benchmarks/results/choose-a-server.json.gz
    # the page and one chart per workload from that file (no figure of the page is typed by hand):
    .venv/bin/python benchmarks/choose_server.py render [--records FILE]

One table per workload and worker model (catalog.variants.MODELS): throughput, p99, the server's CPU per request,
PSS per worker and the flags each record carries; one SVG chart per workload (serverbench.report.svg); and the
answer in sentences, each computed from the rows above it.  A unit test re-renders and compares
(tests/unit/repo/test_choose_server.py).
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from serverbench.catalog.variants import MODELS, VARIANTS
from serverbench.catalog.workloads import WORKLOADS
from serverbench.records import results
from serverbench.report.charts import Axis, Bar, BarChart
from serverbench.report.svg import bar_chart

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "benchmarks" / "results" / "choose-a-server.json.gz"
DOC = ROOT / "docs" / "choose-a-server.md"
CHARTS = ROOT / "docs" / "choose-a-server"
COMMAND = "python benchmarks/choose_server.py render"
# The workloads a web team asks about, each a section of the page: (its title, the chart's file stem, workloads).
SECTIONS = (
    ("Plaintext and JSON", "json", ("plaintext", "json")),
    ("Redis", "redis", ("redis",)),
    ("MongoDB", "mongo", ("mongo-small", "mongo-big", "events-1k", "events-64k")),
    ("A slow upstream", "upstream", ("upstream", "sleep")),
    ("The book site", "site", ("site",)),
)
MODEL_ORDER = (*MODELS, "other runtimes", "unknown")
# A row within 5% of the most its load can ask reached it: the load, not the server, set its throughput.
TIED = 0.05
BY_NAME = {v.name: v for v in VARIANTS}
T = TypeVar("T")


@dataclass(frozen=True)
class Row:
    """One record as the page shows it."""

    variant: str
    app: str
    workload: str
    shape: str
    model: str
    rps: float
    p99_ms: float
    cpu_us: float | None  # the server's CPU per answered request, microseconds
    pss_mb: float | None  # PSS per worker: the median worker's (the only process's when it never forks)
    flags: tuple[str, ...]  # the consistency flags the record carries, SAT when the generator was saturated
    connections: int | None = None  # a closed load's connections (None: an open model, or a locust scenario)

    @property
    def cell(self) -> str:
        return f"{self.variant}/{self.app}" if self.app else self.variant

    @property
    def wait(self) -> float:
        """Seconds the workload waits by design before it answers (the upstream's, the sleep's); 0: none."""
        workload = WORKLOADS.get(self.workload)
        return 0.0 if workload is None or workload.mix else workload.spec.min_seconds

    @property
    def ceiling(self) -> float | None:
        """The most a closed load can ask of a workload that waits: its connections over the wait (64 connections
        each waiting 100 ms ask for 640 rps at most); None when it does not wait or the load is not closed."""
        return self.connections / self.wait if self.wait and self.connections else None

    @property
    def held(self) -> int | None:
        """Requests the server serves at once when each blocks through the wait (catalog: workers x threads, a C
        event loop's one thread per process running a WSGI app); None when nothing bounds them."""
        variant = BY_NAME.get(self.variant)
        return variant.blocking_concurrency if variant else None

    @property
    def at_ceiling(self) -> bool:
        return self.ceiling is not None and self.rps >= (1 - TIED) * self.ceiling


def gunzipped(path: Path, reader: Callable[[Path], T]) -> T:
    """``reader(path)``; for a gzip-compressed file (``.gz``), ``reader`` of its decompressed copy."""
    if path.suffix != ".gz":
        return reader(path)
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / path.with_suffix("").name
        plain.write_bytes(gzip.decompress(path.read_bytes()))
        return reader(plain)


def read(path: Path) -> results.ResultsFile:
    """A --perf-json file, gzip-compressed (``.gz``) or not."""
    return gunzipped(path, results.read)


def pss_per_worker(memory: Mapping) -> float | None:
    """The median worker's PSS (MB) of a record's ``memory.processes``; the parent's when it has no workers."""
    processes = [p for p in memory.get("processes") or () if p.get("pss_mb") is not None]
    workers = [p["pss_mb"] for p in processes if not p.get("parent")]
    if workers:
        return statistics.median(workers)
    return processes[0]["pss_mb"] if processes else None


def rows_of(file: results.ResultsFile) -> list[Row]:
    """Every result of the file as a row, its worker model from the catalog."""
    out = []
    for stored in file.results:
        r = stored.result
        good = r.load.good_requests
        variant = BY_NAME.get(r.variant)
        flags = (*stored.flags, *(("SAT",) if r.generator.saturated else ()))
        out.append(
            Row(
                r.variant,
                r.app,
                r.workload,
                r.shape.label,
                variant.model if variant else "unknown",
                r.rps,
                r.load.latency_ms["p99"],
                r.server_cpu_s / good * 1e6 if r.server_cpu_s is not None and good else None,
                pss_per_worker(r.memory),
                flags,
                r.shape.connections if r.shape.model == "closed" else None,
            )
        )
    return out


def _num(value: float | None, digits: int = 0) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def table(rows: Sequence[Row]) -> str:
    """A model's rows, fastest first."""
    lines = [
        "| server | workload | shape | rps | p99 ms | CPU µs/request | PSS MB/worker | flags |",
        "|---|---|---|---:|---:|---:|---:|---|",
    ]
    for r in sorted(rows, key=lambda r: (r.workload, -r.rps)):
        lines.append(
            f"| `{r.cell}` | {r.workload} | {r.shape} | {_num(r.rps)} | {_num(r.p99_ms, 1)} | {_num(r.cpu_us)} "
            f"| {_num(r.pss_mb, 1)} | {', '.join(f'`{f}`' for f in r.flags) or '–'} |"
        )
    return "\n".join(lines) + "\n"


# The report's chart style (report/assets/report.css), inlined: a chart opened on its own has no page around it.
STYLE = (
    "<style>svg{font:11px sans-serif}.title{font-size:13px;font-weight:600;fill:#222}.tick{fill:#555}"
    ".label{fill:#333}.value{fill:#333;font-size:10px}.grid{stroke:#eee}</style>"
)


def chart(title: str, rows: Sequence[Row]) -> str:
    """One bar per cell, fastest first, its model and flags written after the value; a standalone SVG file."""
    bars = tuple(
        Bar(f"{r.cell} {r.workload} {r.shape}", "rps", r.rps, " ".join((r.model, *r.flags)))
        for r in sorted(rows, key=lambda r: -r.rps)
    )
    svg = bar_chart(BarChart(title, Axis("requests per second"), bars))
    head, rest = svg.split(">", 1)
    return f'{head} width="760">{STYLE}{rest}\n'


def best_by_model(rows: Sequence[Row]) -> dict[str, Row]:
    """Each model's fastest row."""
    out: dict[str, Row] = {}
    for r in rows:
        if r.model not in out or r.rps > out[r.model].rps:
            out[r.model] = r
    return out


def sentences(rows: Sequence[Row]) -> list[str]:
    """The answer for one section's rows, each sentence computed from them."""
    if not rows:
        return []
    best = best_by_model(rows)
    top = max(rows, key=lambda r: r.rps)
    models = "; ".join(
        f"{m} `{best[m].cell}` {_num(best[m].rps)}" + _on(best[m], top.workload)
        for m in sorted(best, key=lambda m: -best[m].rps)
    )
    said = [fastest(top, rows) + f" Each model's fastest: {models}."]
    cheap = [r for r in rows if r.cpu_us is not None]
    if cheap:
        c = min(cheap, key=lambda r: r.cpu_us)
        said.append(
            f"The least server CPU per request: `{c.cell}` ({c.model}){_on(c, top.workload)}, {_num(c.cpu_us)} µs."
        )
    small = [r for r in rows if r.pss_mb is not None]
    if small:
        s = min(small, key=lambda r: r.pss_mb)
        said.append(
            f"The smallest worker: `{s.cell}` ({s.model}){_on(s, top.workload)}, {_num(s.pss_mb, 1)} MB of PSS."
        )
    said += bounded(rows)
    saturated = [r for r in rows if "SAT" in r.flags]
    if saturated:
        said.append(
            f"`SAT` on {len(saturated)} of these {len(rows)} rows: the load generator shared this machine's cores "
            "and was at its limit, so those servers may be faster than measured."
        )
    return said


def _on(row: Row, workload: str) -> str:
    """`` on WORKLOAD`` when the row's is not the one the sentence began with."""
    return f" on {row.workload}" if row.workload != workload else ""


def fastest(top: Row, rows: Sequence[Row]) -> str:
    """The fastest row; when it reached the most its load can ask, how many tied there (no server is fastest); when
    its generator was saturated, that its figure is a floor and which rows that leaves unranked."""
    if top.at_ceiling:
        mine = [r for r in rows if r.workload == top.workload and r.connections == top.connections]
        tied = [r for r in mine if r.at_ceiling]
        return (
            f"{len(tied)} of the {len(mine)} servers on {top.workload} came within {TIED:.0%} of "
            f"{_num(top.ceiling)} rps, the most its load can ask ({top.connections} connections, each waiting "
            f"{top.wait * 1000:.0f} ms for its answer): this load does not rank them, their CPU per request and PSS do."
        )
    figures = f"`{top.cell}` ({top.model}) on {top.workload}: {_num(top.rps)} rps, p99 {_num(top.p99_ms, 1)} ms"
    if "SAT" not in top.flags:
        return f"The fastest here was {figures}."
    room = [r for r in rows if "SAT" not in r.flags]
    first = max(room, key=lambda r: r.rps) if room else None
    above = [r for r in rows if "SAT" in r.flags and (first is None or r.rps > first.rps)]
    said = (
        f"The most measured here was {figures}, with the load generator at its limit (`SAT`): a floor of what the "
        "server can do."
    )
    if len(above) > 1:
        said += (
            f" {len(above)} `SAT` rows measured more than "
            + (
                f"the fastest whose generator had room, `{first.cell}` ({first.model}) at {_num(first.rps)} rps"
                if first
                else "any other"
            )
            + ": their order is the generator's as much as the servers'."
        )
    return said


def bounded(rows: Sequence[Row]) -> list[str]:
    """A server that holds a worker through a wait by design (the upstream, the sleep) serves at most its workers
    over the wait: the rows so bounded, grouped by their bound; then the servers that reached the load's ceiling
    instead, each model's first."""
    out = []
    for workload in dict.fromkeys(r.workload for r in rows if r.ceiling):
        mine = [r for r in rows if r.workload == workload and r.ceiling]
        wait, ceiling, connections = mine[0].wait, mine[0].ceiling, mine[0].connections
        held = [r for r in mine if r.held and r.held / r.wait < r.ceiling]
        if held:
            groups = {
                n: sorted((r for r in held if r.held == n), key=lambda r: -r.rps)
                for n in sorted({r.held for r in held})
            }
            near = [r for r in held if r.rps >= (1 - TIED) * r.held / r.wait]
            kinds = [m for m in MODEL_ORDER if any(r.model == m for r in held)]
            kinds_said = " and ".join([", ".join(kinds[:-1]), kinds[-1]] if len(kinds) > 1 else kinds)
            out.append(
                f"Servers that hold a worker through the {wait * 1000:.0f} ms wait (here {kinds_said}) serve at "
                "most their workers over the wait: "
                + "; ".join(
                    f"{n} at a time, at most {_num(n / wait)} rps: "
                    + ", ".join(f"`{r.cell}` {_num(r.rps)}" for r in group)
                    for n, group in groups.items()
                )
                + f". {len(near)} of these {len(held)} came within {TIED:.0%} of their bound."
            )
        free = best_by_model([r for r in mine if r.at_ceiling and not r.held])
        pools = sorted((r for r in mine if r.at_ceiling and r.held), key=lambda r: r.held)
        use = []
        if free:
            use.append(
                f"a server that does not hold a worker through the wait (these reached {_num(ceiling)} rps: "
                + ", ".join(f"{m} `{free[m].cell}`" for m in MODEL_ORDER if m in free)
                + ")"
            )
        if pools:
            use.append(
                f"a pool of at least as many threads as requests waiting at once ({connections} here; the smallest "
                f"that reached it, `{pools[0].cell}`, holds {pools[0].held})"
            )
        if use:
            out.append(f"For an app that waits on slow calls, use {' or '.join(use)}.")
    return out


def page(file: results.ResultsFile, rows: Sequence[Row], records: Path) -> tuple[str, dict[str, str]]:
    """The page's text and its charts ({file name: SVG})."""
    machine = file.machine
    where = ", ".join(
        str(x) for x in (machine.get("cpu"), f"{machine.get('cores')} cores" if machine.get("cores") else None) if x
    )
    head = [
        "# Choose a server",
        "",
        "Which Python web server and worker model to use, answered from one whole default run: every variant with "
        "its reference app on each workload, measured one cell at a time on one machine.",
        "",
        f"<!-- BEGIN MEASURED: choose-a-server (by `{COMMAND}`; edit the data, not this copy) -->",
        f"Measured {file.created} on {where or 'an unnamed machine'}"
        + (f" at commit `{file.commit}`" if file.commit else "")
        + f" (`{records.relative_to(ROOT) if records.is_relative_to(ROOT) else records.name}`, "
        f"{len(rows)} results). The load generator ran on the same "
        + (f"{machine['cores']}-core " if machine.get("cores") else "")
        + "machine as the server and took some of its CPU: compare rows with each other, not with another "
        "machine's figures.",
        "",
    ]
    body, charts = [], {}
    for title, stem, names in SECTIONS:
        section = [r for r in rows if r.workload in names]
        if not section:
            continue
        body += [f"## {title}", ""]
        body += [f"- {s}" for s in sentences(section)] + [""]
        charts[f"{stem}.svg"] = chart(f"{title}: requests per second", section)
        body += [f"![{title}: requests per second by server]({CHARTS.name}/{stem}.svg)", ""]
        for model in MODEL_ORDER:
            mine = [r for r in section if r.model == model]
            if mine:
                body += [f"### {title}: {model}", "", table(mine)]
    tail = [
        "Flags: what each record's own numbers show ([checks](checks.md)); `SAT`: the load generator was at its "
        "limit. CPU per request is the server's whole process tree's over the answered requests; PSS per worker is "
        "the median worker's at the window's end ([memory](memory.md)).",
        "<!-- END MEASURED: choose-a-server -->",
        "",
    ]
    return "\n".join(head + body + tail), charts


def render(records: Path = RECORDS, doc: Path = DOC, write: bool = True) -> dict[Path, str]:
    """The page and its charts rendered from ``records``: {path: text}; written when ``write``."""
    records = records.resolve()
    file = read(records)
    text, charts = page(file, rows_of(file), records)
    out = {doc: text, **{doc.parent / CHARTS.name / name: svg for name, svg in charts.items()}}
    if write:
        for path, content in out.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
            print(path)
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    r = sub.add_parser("render", help="rewrite docs/choose-a-server.md and its charts from the records file")
    r.add_argument("--records", type=Path, default=RECORDS, help="a --perf-json file, .gz or not")
    args = parser.parse_args(argv)
    if not args.records.exists():
        print(
            f"{args.records}: no such file; make it with the first command of this script's docstring", file=sys.stderr
        )
        return 2
    render(args.records)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
