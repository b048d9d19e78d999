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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

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
BY_NAME = {v.name: v for v in VARIANTS}


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

    @property
    def cell(self) -> str:
        return f"{self.variant}/{self.app}" if self.app else self.variant


def read(path: Path) -> results.ResultsFile:
    """A --perf-json file, gzip-compressed (``.gz``) or not."""
    if path.suffix != ".gz":
        return results.read(path)
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / path.with_suffix("").name
        plain.write_bytes(gzip.decompress(path.read_bytes()))
        return results.read(plain)


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
    said = [
        f"The fastest here was `{top.cell}` ({top.model}) on {top.workload}: {_num(top.rps)} rps, p99 "
        f"{_num(top.p99_ms, 1)} ms. Each model's fastest: "
        + "; ".join(f"{m} `{best[m].cell}` {_num(best[m].rps)}" for m in sorted(best, key=lambda m: -best[m].rps))
        + "."
    ]
    cheap = [r for r in rows if r.cpu_us is not None]
    if cheap:
        c = min(cheap, key=lambda r: r.cpu_us)
        said.append(f"The least server CPU per request: `{c.cell}` ({c.model}), {_num(c.cpu_us)} µs.")
    small = [r for r in rows if r.pss_mb is not None]
    if small:
        s = min(small, key=lambda r: r.pss_mb)
        said.append(f"The smallest worker: `{s.cell}` ({s.model}), {_num(s.pss_mb, 1)} MB of PSS.")
    said += bounded(rows)
    saturated = [r for r in rows if "SAT" in r.flags]
    if saturated:
        said.append(
            f"`SAT` on {len(saturated)} of these {len(rows)} rows: the load generator shared this machine's cores "
            "and was at its limit, so those servers may be faster than measured."
        )
    return said


def bounded(rows: Sequence[Row]) -> list[str]:
    """A pool serving a workload that waits by design (the upstream, the sleep) cannot pass its threads over the
    wait: the sentence compares each such row with that bound and with the fastest row that has none."""
    out = []
    for r in rows:
        variant, workload = BY_NAME.get(r.variant), WORKLOADS.get(r.workload)
        if variant is None or workload is None or workload.mix or r.model != "sync processes":
            continue
        wait, concurrency = workload.spec.min_seconds, variant.blocking_concurrency
        if not wait or not concurrency:
            continue
        free = [
            x
            for x in rows
            if x.workload == r.workload and BY_NAME.get(x.variant) and not BY_NAME[x.variant].blocking_concurrency
        ]
        faster = max(free, key=lambda x: x.rps) if free else None
        out.append(
            f"`{r.cell}` can hold {concurrency} requests at once, so a {wait * 1000:.0f} ms wait bounds it at "
            f"{concurrency / wait:,.0f} rps; it measured {_num(r.rps)}."
            + (
                f" `{faster.cell}` ({faster.model}) waits without holding a worker: {_num(faster.rps)} rps. For an "
                "app that waits on slow calls, use an event loop or greenlets."
                if faster and faster.rps > r.rps
                else ""
            )
        )
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
