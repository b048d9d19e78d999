"""benchmarks/choose_server.py: docs/choose-a-server.md rendered from a records file, its tables grouped by worker
model, its sentences computed from the rows; and the committed page is the render of the committed records."""

import dataclasses

import pytest

from serverbench.records import results
from tests.unit.repo.benchmark_scripts import ROOT, script, stale_renders
from tests.unit.sample_records import result

CHOOSE = script("choose_server.py")
WORKERS = {
    "processes": [{"parent": True, "pss_mb": 9.0}, {"parent": False, "pss_mb": 30.0}, {"parent": False, "pss_mb": 32.0}]
}


def hand_made_records(tmp_path):
    """TEST INPUT, made by hand (not a measurement): five records of four variants on three workloads, one with a
    flag, one whose generator was saturated.  The real page is rendered from a committed default run."""
    sync = dataclasses.replace(result("test_closed::gunicorn-sync-w2/flask/upstream/c64", 19.6), memory=WORKERS)
    loop = dataclasses.replace(
        result("test_closed::aiohttp/aiohttp/upstream/c64", 610.0),
        memory={"processes": [{"parent": True, "pss_mb": 41.5}]},
    )
    gevent = result("test_closed::gunicorn-gevent-w2/flask/json/c64", 4100.0)
    uvicorn = result("test_closed::uvicorn/raw-asgi/json/c64", 9800.0, p99=3.25)
    uvicorn = dataclasses.replace(uvicorn, generator=dataclasses.replace(uvicorn.generator, cpu_s=10.0, wall_s=5.0))
    waitress = result("test_closed::waitress-t4/flask/redis/c64", 2300.0)
    path = tmp_path / "records.json"
    results.write(
        path,
        {"id": "m1", "cpu": "a hand-made CPU", "cores": 2},
        [(r, None) for r in (sync, loop, gevent, uvicorn, waitress)],
        [],
        "0",
        flags=[[], [], [], [], [{"name": "stall", "message": "made by hand"}]],
    )
    return path


def test_each_workload_has_a_table_per_worker_model(tmp_path):
    """The upstream section holds a sync-processes and an asyncio table, JSON a greenlets and an asyncio one,
    each row with its throughput, p99, CPU per request, PSS per worker and flags."""
    text, _ = CHOOSE.page(
        CHOOSE.read(hand_made_records(tmp_path)),
        CHOOSE.rows_of(CHOOSE.read(hand_made_records(tmp_path))),
        tmp_path / "r.json",
    )
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings == [
        "# Choose a server",
        "## Plaintext and JSON",
        "### Plaintext and JSON: greenlets",
        "### Plaintext and JSON: asyncio",
        "## Redis",
        "### Redis: threads",
        "## A slow upstream",
        "### A slow upstream: sync processes",
        "### A slow upstream: asyncio",
    ]
    assert "| `gunicorn-sync-w2/flask` | upstream | c64 | 20 | 12.5 | 20,408 | 31.0 | – |" in text
    assert "| `aiohttp/aiohttp` | upstream | c64 | 610 | 12.5 | 656 | 41.5 | – |" in text
    assert "| `waitress-t4/flask` | redis | c64 | 2,300 | 12.5 | 174 | – | `stall` |" in text
    assert "| `uvicorn/raw-asgi` | json | c64 | 9,800 | 3.2 | 41 | – | `SAT` |" in text


def test_the_sentences_rest_on_the_rows(tmp_path):
    """The sync worker's bound on the 100 ms upstream is its workers over the wait; the event loop that has none
    reached the load's ceiling (64 connections over 100 ms), so the section names a tie, not a fastest; the
    cheapest and the smallest are named with their figures; a SAT top row is a floor; SAT rows are counted."""
    rows = CHOOSE.rows_of(CHOOSE.read(hand_made_records(tmp_path)))
    upstream = [r for r in rows if r.workload == "upstream"]
    said = " ".join(CHOOSE.sentences(upstream))
    assert said.startswith("1 of the 2 servers on upstream came within 5% of 640 rps, the most its load can ask")
    assert "(here sync processes) serve at most their workers over the wait: 2 at a time, at most 20 rps: " in said
    assert "`gunicorn-sync-w2/flask` 20. 1 of these 1 came within 5% of their bound." in said
    assert "use a server that does not hold a worker through the wait (these reached 640 rps: asyncio " in said
    assert "The smallest worker: `gunicorn-sync-w2/flask` (sync processes), 31.0 MB of PSS." in said
    json = " ".join(CHOOSE.sentences([r for r in rows if r.workload == "json"]))
    assert json.startswith("The most measured here was `uvicorn/raw-asgi` (asyncio) on json: 9,800 rps, p99 3.2 ms")
    assert "a floor of what the server can do" in json and "`SAT` on 1 of these 2 rows" in json


def test_a_c_event_loop_running_a_wsgi_app_is_bounded_not_recommended(tmp_path):
    """On the upstream, meinheld (a C event loop) running Flask holds its one thread through the wait: it is listed
    with the bounded servers, and the advice names only the models that reached the ceiling."""
    path = hand_made_records(tmp_path)
    rows = CHOOSE.rows_of(CHOOSE.read(path))
    meinheld = dataclasses.replace(
        next(r for r in rows if r.variant == "gunicorn-sync-w2"), variant="meinheld", model="C event loops", rps=9.8
    )
    said = " ".join(CHOOSE.sentences([*[r for r in rows if r.workload == "upstream"], meinheld]))
    assert (
        "(here sync processes and C event loops)" in said and "1 at a time, at most 10 rps: `meinheld/flask` 10" in said
    )
    advice = said.split("For an app that waits on slow calls, use ", 1)[1]
    assert "C event loops" not in advice and "asyncio `aiohttp/aiohttp`" in advice


def test_a_saturated_top_leaves_the_rows_above_the_first_unsaturated_unranked(tmp_path):
    """Two SAT rows above the fastest row whose generator had room: the page says their order is not a ranking."""
    rows = [r for r in CHOOSE.rows_of(CHOOSE.read(hand_made_records(tmp_path))) if r.workload == "json"]
    second = dataclasses.replace(rows[0], variant="granian-asgi", model="Rust-core servers", rps=9000.0, flags=("SAT",))
    said = CHOOSE.fastest(max(rows, key=lambda r: r.rps), [*rows, second])
    assert "2 `SAT` rows measured more than the fastest whose generator had room, `gunicorn-gevent-w2/flask`" in said
    assert said.endswith("their order is the generator's as much as the servers'.")


def test_pss_per_worker_is_the_median_workers_or_the_only_process():
    """Workers' median PSS; a server that never forks is its one process; no samples, none."""
    assert CHOOSE.pss_per_worker(WORKERS) == 31.0
    assert CHOOSE.pss_per_worker({"processes": [{"parent": True, "pss_mb": 41.5}]}) == 41.5
    assert CHOOSE.pss_per_worker({}) is None


def test_render_writes_the_page_and_one_chart_per_workload(tmp_path):
    """render() gives the page and an SVG per section measured, the page linking each chart."""
    doc = tmp_path / "docs" / "choose-a-server.md"
    out = CHOOSE.render(hand_made_records(tmp_path), doc, write=True)
    charts = sorted(p.name for p in out if p.suffix == ".svg")
    assert charts == ["json.svg", "redis.svg", "upstream.svg"]
    for name in charts:
        assert f"](choose-a-server/{name})" in doc.read_text()
        assert (doc.parent / "choose-a-server" / name).read_text().startswith("<svg ")


def test_a_gzipped_records_file_reads_as_the_plain_one(tmp_path):
    """The committed records are compressed: the .gz reads to the same results."""
    import gzip

    plain = hand_made_records(tmp_path)
    packed = tmp_path / "records.json.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert CHOOSE.read(packed).results == CHOOSE.read(plain).results


def test_the_committed_page_is_the_render_of_the_committed_records():
    """docs/choose-a-server.md and its charts are what benchmarks/results/choose-a-server.json.gz renders."""
    if not CHOOSE.RECORDS.exists():
        pytest.skip(
            f"{CHOOSE.RECORDS.relative_to(ROOT)} is not committed yet: a whole default run's records, made on the "
            "measuring machine (the first command of benchmarks/choose_server.py's docstring)"
        )
    stale = stale_renders(CHOOSE)
    assert not stale, f"{stale}: run `{CHOOSE.COMMAND}` and commit the result"
