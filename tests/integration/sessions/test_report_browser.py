"""The HTML report in a real browser (Debian's chromium driven by Playwright): it loads offline with no
console error and no request, every chart its data calls for is drawn, and the summary table sorts."""

from __future__ import annotations

import shutil
import subprocess
import tarfile
from io import BytesIO
from pathlib import Path

import pytest

from serverbench.report import html
from serverbench.report.inputs import load
from serverbench.report.sections import select
from tests.results_branch import FETCH, results_ref

ROOT = Path(__file__).resolve().parents[3]


REF = results_ref()
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

sync_api = pytest.importorskip(
    "playwright.sync_api",
    reason="Playwright for Python is missing: pip install playwright (the test extra); no browser download is needed",
)
pytestmark = [
    pytest.mark.skipif(
        CHROMIUM is None, reason="no chromium on PATH: apt-get install -y chromium (./run tests installs it)"
    ),
    pytest.mark.skipif(REF is None, reason=f"no `results` branch in this clone: {' '.join(FETCH)}"),
]


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """The raw run files of the `results` branch, unpacked."""
    out = tmp_path_factory.mktemp("results-branch")
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", REF, "benchmarks/results"], capture_output=True, check=True
    )
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(out, filter="data")
    return out / "benchmarks" / "results"


@pytest.fixture(scope="module")
def report(tmp_path_factory, results) -> Path:
    """The report of every stored result and A/B decision on the `results` branch."""
    path = tmp_path_factory.mktemp("report") / "report.html"
    html.write(path, load([results]))
    return path


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def opened(browser, report):
    """The report opened from disk, with every console error, page error and request recorded."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    seen = {"errors": [], "requests": []}
    page.on("console", lambda m: seen["errors"].append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: seen["errors"].append(str(e)))
    page.on("request", lambda r: seen["requests"].append(r.url))
    page.goto(report.as_uri())
    page.wait_for_load_state("load")
    yield page, seen
    page.close()


def test_loads_offline_with_no_console_error(opened):
    """No console error, and the only request is the file itself: nothing fetched from any network."""
    page, seen = opened
    assert seen["errors"] == []
    assert all(url.startswith(("file:", "data:")) for url in seen["requests"]), seen["requests"]


def test_every_section_draws_its_charts(opened, results):
    """Each section the stored data calls for is on the page, and each of its charts is drawn: a visible
    SVG with marks in it (folded proof runs are opened first)."""
    page, _ = opened
    expected = {s.id: len(s.charts) for s in select(load([results]))}
    assert set(expected) == {"summary", "connections", "rates", "reuse", "cpu", "interpreters", "ab", "history"}
    page.eval_on_selector_all("details", "els => els.forEach(d => d.open = true)")
    for sid, count in expected.items():
        drawn = page.eval_on_selector_all(
            f"#{sid} figure.plot svg",
            "svgs => svgs.map(s => [s.getBoundingClientRect().width, s.getBoundingClientRect().height,"
            " s.querySelectorAll('polyline, circle, rect').length])",
        )
        assert len(drawn) == count, sid
        assert all(w > 100 and h > 50 and marks > 0 for w, h, marks in drawn), (sid, drawn)


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
    assert len(up) > 100 and up == sorted(up) and down == sorted(up, reverse=True)


def test_legend_hides_a_series(opened):
    """Clicking a legend entry hides that series in its chart."""
    page, _ = opened
    figure = page.locator("#connections figure.plot").first
    figure.locator(".legend li").first.click()
    assert figure.locator('svg g.series[data-series="0"]').first.is_hidden()
