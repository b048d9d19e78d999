"""The HTML report in a real browser (Debian's chromium driven by Playwright): it loads offline with no
console error and no request, it opens with a throughput chart per workload, every chart its data calls for is drawn,
the summary table scrolls inside its own frame, and it sorts.

The records are a short real session committed beside this file (records/short-session.json, 58 KB: gunicorn-sync-w2
and aiohttp on /json and /redis at 8 and 64 connections and the locust site scenario, made with
``pytest -m perf tests/perf --perf-variants gunicorn-sync-w2,aiohttp --perf-workloads json,redis
--perf-connections 8,64 --perf-json records/short-session.json``), so these tests run in every clone and every CI."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from serverbench.report import html
from serverbench.report.inputs import load
from serverbench.report.sections import select

RECORDS = Path(__file__).resolve().parent / "records" / "short-session.json"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

sync_api = pytest.importorskip(
    "playwright.sync_api",
    reason="Playwright for Python is missing: pip install playwright (the test extra); no browser download is needed",
)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium on PATH: apt-get install -y chromium (./run tests installs it)"
)


@pytest.fixture(scope="module")
def inputs():
    """The committed session's records, read as the report reads them."""
    return load([RECORDS])


@pytest.fixture(scope="module")
def report(tmp_path_factory, inputs) -> Path:
    """The report of the committed session."""
    path = tmp_path_factory.mktemp("report") / "report.html"
    html.write(path, inputs)
    return path


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def open_report(browser, report: Path, width: int):
    """The report opened from disk in a window ``width`` pixels wide, with every console error, page error and request
    recorded."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    seen = {"errors": [], "requests": []}
    page.on("console", lambda m: seen["errors"].append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: seen["errors"].append(str(e)))
    page.on("request", lambda r: seen["requests"].append(r.url))
    page.goto(report.as_uri())
    page.wait_for_load_state("load")
    return page, seen


@pytest.fixture
def opened(browser, report):
    """The report in a 1280-pixel window."""
    page, seen = open_report(browser, report, 1280)
    yield page, seen
    page.close()


def test_loads_offline_with_no_console_error(opened):
    """No console error, and the only request is the file itself: nothing fetched from any network."""
    page, seen = opened
    assert seen["errors"] == []
    assert all(url.startswith(("file:", "data:")) for url in seen["requests"]), seen["requests"]


def test_every_section_draws_its_charts(opened, inputs):
    """Each section the records call for is on the page, and each of its charts is drawn: a visible SVG with marks in
    it (folded blocks are opened first)."""
    page, _ = opened
    expected = {s.id: len(s.charts) for s in select(inputs)}
    assert set(expected) == {"throughput", "summary", "connections", "cpu", "memory"}
    page.eval_on_selector_all("details", "els => els.forEach(d => d.open = true)")
    for sid, count in expected.items():
        drawn = page.eval_on_selector_all(
            f"#{sid} figure.plot svg",
            "svgs => svgs.map(s => [s.getBoundingClientRect().width, s.getBoundingClientRect().height,"
            " s.querySelectorAll('polyline, circle, rect').length])",
        )
        assert len(drawn) == count, sid
        assert all(w > 100 and h > 50 and marks > 0 for w, h, marks in drawn), (sid, drawn)


def test_the_report_opens_with_a_throughput_chart_per_workload(opened, inputs):
    """The first section is the answer: one chart per workload, a bar and a p50 dot per cell, SAT, flagged and
    unjudged cells marked as the records say, all above the summary table."""
    page, _ = opened
    results = [s for run in inputs.sources.values() for s in run.results]
    workloads = list(dict.fromkeys(s.result.workload for s in results))
    assert page.eval_on_selector("section", "s => s.id") == "throughput"
    charts = page.eval_on_selector_all(
        "#throughput figure.plot svg",
        """svgs => svgs.map(s => ({
            title: s.querySelector("text.title").textContent,
            cells: s.querySelectorAll("g.cell").length,
            bars: Array.from(s.querySelectorAll("rect.bar")).filter(b => b.getBoundingClientRect().width > 0).length,
            dots: s.querySelectorAll("circle.p50").length,
            sat: s.querySelectorAll("g.cell.sat").length,
            flagged: s.querySelectorAll("g.cell.flagged").length,
            unjudged: s.querySelectorAll("g.cell.unjudged").length,
        }))""",
    )
    assert [c["title"] for c in charts] == [f"{w}: throughput and latency per cell" for w in workloads]
    for workload, drawn in zip(workloads, charts):
        mine = [s for s in results if s.result.workload == workload]
        status = [(s.verdict or {}).get("status") for s in mine]
        assert drawn["cells"] == drawn["bars"] == len(mine), drawn
        assert drawn["dots"] == sum(1 for s in mine if s.result.load.latency_ms.get("p50")), drawn
        assert drawn["sat"] == sum(
            1 for s in mine if s.result.generator.saturated or any(b.bound for b in s.result.backends)
        ), drawn
        assert drawn["unjudged"] == status.count("no-baseline"), drawn
        flagged = [
            s for s, v in zip(mine, status) if v == "fail" or set(s.flags) - {"generator-saturated", "backend-bound"}
        ]
        assert drawn["flagged"] == len(flagged), drawn
    chart_top = page.locator("#throughput figure.plot").first.bounding_box()["y"]
    assert chart_top < page.locator("#summary table").first.bounding_box()["y"]


def test_the_summary_table_scrolls_inside_its_own_frame(browser, report):
    """In a window narrower than the table the page keeps the window's width and the table's frame scrolls."""
    page, seen = open_report(browser, report, 900)
    try:
        frame = page.locator("#summary .frame").first
        sizes = frame.evaluate(
            """f => { f.scrollLeft = 10000;
            return {page: document.documentElement.scrollWidth, window: window.innerWidth, right: f.getBoundingClientRect().right,
                    table: f.scrollWidth, frame: f.clientWidth, scrolled: f.scrollLeft}; }"""
        )
        assert sizes["page"] <= sizes["window"] and sizes["right"] <= sizes["window"], sizes
        assert sizes["table"] > sizes["frame"] and sizes["scrolled"] > 0, sizes
        assert seen["errors"] == []
    finally:
        page.close()


def test_summary_table_sorts_by_the_clicked_column(opened):
    """Clicking rps sorts the rows by throughput, ascending, then descending."""
    page, _ = opened
    table = page.locator("#summary table.sortable").first
    read = """table => {
        const col = Array.from(table.tHead.rows[0].cells).findIndex(th => th.textContent === "rps");
        return Array.from(table.tBodies[0].rows).map(r => parseFloat(r.cells[col].dataset.sort))
            .filter(v => !isNaN(v));
    }"""
    header = table.locator("th", has_text="rps").first
    header.click()
    up = table.evaluate(read)
    header.click()
    down = table.evaluate(read)
    assert len(up) == 10 and up == sorted(up) and down == sorted(up, reverse=True) and up != down


def test_legend_hides_a_series(opened):
    """Clicking a legend entry hides that series in its chart."""
    page, _ = opened
    figure = page.locator("#connections figure.plot").first
    figure.locator(".legend li").first.click()
    assert figure.locator('svg g.series[data-series="0"]').first.is_hidden()
