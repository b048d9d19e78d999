"""Memory per variant: the server tree's PSS beside its RSS idle, under c64 load, and holding N idle
keep-alive connections (what each costs), plus soaks that fit PSS growth per 10,000 requests.

    flock /tmp/serverbench-load.lock .venv/bin/python benchmarks/memory.py footprint --variants a,b --conns 100,1000
    flock /tmp/serverbench-load.lock .venv/bin/python benchmarks/memory.py soak --variants a,b --seconds 30 --leak 0,256
    .venv/bin/python benchmarks/memory.py render

``footprint`` starts each variant serving /json, samples the idle tree for 1 s, runs c64 for 5 s
(1 s warm-up) reading its record's peak PSS and RSS, then holds N keep-alive connections (each sent
one request and then silent; measure.trials.slowclients) and samples the tree again: (PSS held - PSS idle) / N
is the cost of a connection.  ``soak`` runs c64 for the given seconds (2 s warm-up) with
SERVERBENCH_LEAK_BYTES set to each --leak value and SERVERBENCH_HEAP_DIR to a folder on /dev/shm (the
reference apps write their Python heap there), and judges the growth of PSS, the heap, open descriptors
and sockets (judge.memory); ``--repeat N`` soaks each value N times (A/A soaks without the knob).  Rows merge
into benchmarks/results/memory.json (raw, with every sampled series: local output, not kept in the tree), and the
columns the tables show are written to benchmarks/results/memory-summary.json (in the tree); ``render``
writes the tables into docs/memory.md from the summary alone.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import tempfile
import time
from pathlib import Path

from serverbench.catalog.shapes import LoadShape
from serverbench.catalog.variants import registry
from serverbench.catalog.workloads import WORKLOADS
from serverbench.drivers.base import driver_for
from serverbench.errors import GeneratorError, ServerDiedError, ServerStartError, VerificationError
from serverbench.judge.memory import per_connection_kb, record_growths
from serverbench.measure.host.machine import machine_info, python_info
from serverbench.measure.host.sampling import TreeSampler
from serverbench.measure.serving.servers import start_variant
from serverbench.measure.serving.verify import verify
from serverbench.measure.trials.slowclients import SlowClients
from serverbench.measure.trials.trial import Trial, Warmup, run_trial

ROOT = Path(__file__).resolve().parents[1]
APPS = ROOT / "apps"
OUT = ROOT / "benchmarks/results/memory.json"
SUMMARY = ROOT / "benchmarks/results/memory-summary.json"
GROWTH = ("slope_mb_per_10k", "low", "high", "verdict")  # what a table cell of a growth shows
DOC = ROOT / "docs/memory.md"
LAB = ROOT / "docs/lab/memory.md"  # the soaks: how the growth judge and its threshold were measured
MARKS = {
    "footprint": ("<!-- memory table (benchmarks/memory.py render) -->\n", "<!-- end of the memory table -->"),
    "soak": ("<!-- soak table (benchmarks/memory.py render) -->\n", "<!-- end of the soak table -->"),
    "sharing": ("<!-- sharing table (benchmarks/memory.py render) -->\n", "<!-- end of the sharing table -->"),
}
PAGES = {"sharing": DOC, "footprint": DOC, "soak": LAB}  # the page each table is rendered into
# The table of what a fork shares: the master's and each worker's pages, without and with preload and gc.freeze().
SHARING = ("gunicorn-sync-w4", "gunicorn-sync-w4-preload", "gunicorn-sync-w4-freeze")


def started(name: str, env: dict | None = None):
    server = start_variant(registry()[name], apps_dir=APPS, env=env, timeout=60.0)
    try:
        verify(server.url, [WORKLOADS["json"].spec], name)
    except VerificationError:
        server.stop()
        raise
    return server


def tree(pid: int, seconds: float = 1.0) -> dict:
    """The tree's memory after ``seconds`` of sampling: PSS/RSS (MB, at the end), processes, each one."""
    with TreeSampler(pid, interval=0.1) as sampler:
        time.sleep(seconds)
    usage = sampler.usage()
    procs = usage.per_process
    return {
        "pss_mb": usage.pss_end_mb,
        "rss_mb": round(sum(p["rss_mb"] for p in procs), 2),
        "uss_mb": round(sum(p["uss_mb"] or 0 for p in procs), 2),
        "sockets": sum(p["sockets"] or 0 for p in procs),
        "processes": list(procs),
    }


def trial(server, name: str, seconds: int, warmup: int) -> dict:
    shape = LoadShape(64, seconds)
    rec = run_trial(
        Trial(
            server,
            WORKLOADS["json"],
            shape,
            driver_for(shape),
            nodeid=f"memory::{name}",
            test="memory",
            machine={},
            python=python_info(),
        ),
        Warmup(warmup),
    ).to_record()
    return rec


def footprint(name: str, conns: list[int]) -> dict:
    row: dict = {}
    server = started(name)
    try:
        row["idle"] = tree(server.pid)
        rec = trial(server, name, 5, 1)
        row["c64"] = {
            "pss_mb": rec["server"].get("pss_mb"),
            "rss_mb": rec["server"]["rss_mb"],
            "rps": rec["rps"],
            "processes": rec["memory"]["processes"],
        }
        after = tree(server.pid)  # the idle server after load: the baseline for connections (pools, arenas warm)
        row["after_load"] = after
        for n in conns:
            clients = SlowClients(server.url + "/json", "keepalive", n, seconds=120.0).start()
            try:
                held = tree(server.pid, 1.5)
            finally:
                report = clients.stop()
            row[f"conn{n}"] = {
                "pss_mb": held["pss_mb"],
                "rss_mb": held["rss_mb"],
                "held": report.held,
                "opened": report.opened,
                "sockets": held["sockets"],
                "kb_per_conn": per_connection_kb(after["pss_mb"], held["pss_mb"], report.held),
            }
            time.sleep(0.5)
        print(
            f"  {name}: idle PSS {row['idle']['pss_mb']} / RSS {row['idle']['rss_mb']} MB; c64 PSS "
            f"{row['c64']['pss_mb']} / RSS {row['c64']['rss_mb']}; "
            + "; ".join(
                f"{k}: {v['held']} held, {v['kb_per_conn']} KB each" for k, v in row.items() if k.startswith("conn")
            ),
            flush=True,
        )
    finally:
        server.stop()
    return row


def soak(name: str, leak: int, seconds: int) -> dict:
    # /dev/shm: a file written and renamed every 0.2 s per worker costs ~70 us there, ~600 us on this disk.
    with tempfile.TemporaryDirectory(prefix="serverbench-heap-", dir="/dev/shm") as heap_dir:
        env = {"SERVERBENCH_HEAP_DIR": heap_dir, **({"SERVERBENCH_LEAK_BYTES": str(leak)} if leak else {})}
        server = started(name, env=env)
        try:
            rec = trial(server, name, seconds, 2)
        finally:
            server.stop()
    growths = record_growths(rec)
    g = growths["pss_mb"]
    series = rec["memory"]["series"]
    print(
        f"  {name} leak {leak} B: {rec['requests']:,} requests, PSS {series['pss_mb'][0]} -> "
        f"{series['pss_mb'][-1]} MB; " + "; ".join(x.message for x in growths.values()),
        flush=True,
    )
    return {
        "leak_bytes": leak,
        "seconds": seconds,
        "requests": rec["requests"],
        "rps": rec["rps"],
        "growth": g.to_record(),
        "growths": {k: x.to_record() for k, x in growths.items()},
        **{k: series[k] for k in ("t_s", "pss_mb", "fds", "sockets", "heap_blocks", "heap_malloc_mb") if k in series},
    }


def merge(part: str, rows: dict) -> None:
    if not OUT.exists() and SUMMARY.exists():
        raise SystemExit(
            f"{OUT.relative_to(ROOT)} is missing, so the summary's earlier rows would be lost (the raw rows behind "
            f"them are not kept in the tree): measure those rows here first, or move {SUMMARY.relative_to(ROOT)} "
            "aside to start a new summary"
        )
    data = json.loads(OUT.read_text()) if OUT.exists() else {"variants": {}}
    data["machine"] = machine_info("wrk")
    data["python"] = python_info()
    for name, row in rows.items():
        entry = data["variants"].setdefault(name, {})
        if part == "soak":
            entry.setdefault("soak", []).extend(row)
        else:  # a later run at other connection counts adds its columns
            entry.setdefault(part, {}).update(row)
        entry["worker"] = registry()[name].worker
        entry["measured_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    SUMMARY.write_text(json.dumps(summary(data), indent=1, sort_keys=True) + "\n")


def summary(data: dict) -> dict:
    """What the tables show of the raw rows: no sampled series, a process count for each process list."""
    variants = {}
    for name, v in data["variants"].items():
        row = {"worker": v["worker"], "measured_at": v["measured_at"]}
        if v.get("footprint"):
            row["footprint"] = {
                state: {
                    **{
                        k: len(x) if k == "processes" else x
                        for k, x in sample.items()
                        if k in ("processes", "pss_mb", "rss_mb", "held", "kb_per_conn")
                    },
                    **(processes(sample["processes"]) if state in ("idle", "c64") else {}),
                }
                for state, sample in v["footprint"].items()
                if state in ("idle", "c64") or state.startswith("conn")
            }
        if v.get("soak"):
            row["soak"] = [
                {
                    "leak_bytes": s["leak_bytes"],
                    "seconds": s["seconds"],
                    "requests": s["requests"],
                    "pss_mb": [s["pss_mb"][0], s["pss_mb"][-1]],
                    "growth": {k: s["growth"][k] for k in GROWTH},
                    "growths": {
                        k: {f: g[f] for f in GROWTH}
                        for k, g in s.get("growths", {}).items()
                        if k in ("heap_blocks", "heap_malloc_mb", "sockets")
                    },
                }
                for s in v["soak"]
            ]
        variants[name] = row
    return {"machine": data["machine"], "python": data["python"], "variants": variants}


def processes(rows: list[dict]) -> dict:
    """A sampled tree's master (its PSS and USS) and its workers (the median RSS, PSS and USS of the others):
    what the sharing table shows.  Empty for a tree of one process."""
    master = [r for r in rows if r.get("parent")]
    workers = [r for r in rows if not r.get("parent")]
    if len(master) != 1 or not workers:
        return {}
    return {
        "master": {k: master[0][k] for k in ("pss_mb", "uss_mb")},
        "worker": {k: round(statistics.median(w[k] for w in workers), 2) for k in ("rss_mb", "pss_mb", "uss_mb")},
    }


def sharing_table(data: dict) -> str:
    """Each of SHARING's trees idle and under c64: summed RSS, PSS, the master's PSS / USS, a worker's RSS / PSS / USS."""
    lines = [
        "| variant | tree RSS (sum) MB | tree PSS MB | master PSS / USS | each worker RSS / PSS / USS |",
        "|---|---:|---:|---|---|",
    ]
    for name in SHARING:
        f = data["variants"].get(name, {}).get("footprint") or {}
        for state in ("idle", "c64"):
            t = f.get(state)
            if not t or "master" not in t:
                continue
            m, w = t["master"], t["worker"]
            lines.append(
                f"| {name} ({state}) | {_mb(t['rss_mb'])} | {_mb(t['pss_mb'])} | {_mb(m['pss_mb'])} / {_mb(m['uss_mb'])} "
                f"| {_mb(w['rss_mb'])} / {_mb(w['pss_mb'])} / {_mb(w['uss_mb'])} |"
            )
    dates = sorted({data["variants"][n]["measured_at"][:10] for n in SHARING if n in data["variants"]})
    return "\n".join(lines) + f"\n\nMeasured {', '.join(dates)} (`measured_at` in the summary).\n"


def _mb(value) -> str:
    return "–" if value is None else f"{value:.1f}"


def footprint_table(data: dict) -> str:
    ns = sorted(
        {int(k[4:]) for v in data["variants"].values() for k in (v.get("footprint") or {}) if k.startswith("conn")}
    )
    heads = ["variant", "worker", "procs", "idle PSS / RSS MB", "c64 PSS / RSS MB"] + [
        f"{n} conns: held, KB each" for n in ns
    ]
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    order = list(registry())
    for name, v in sorted(data["variants"].items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else 999):
        f = v.get("footprint")
        if not f:
            continue
        cells = [
            name,
            v["worker"],
            str(f["idle"]["processes"]),
            f"{_mb(f['idle']['pss_mb'])} / {_mb(f['idle']['rss_mb'])}",
            f"{_mb(f['c64']['pss_mb'])} / {_mb(f['c64']['rss_mb'])}",
        ]
        for n in ns:
            c = f.get(f"conn{n}")
            cells.append(
                "–"
                if not c
                else f"{c['held']:,}, {c['kb_per_conn']:.1f}"
                if c["kb_per_conn"] is not None
                else f"{c['held']:,}, –"
            )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def soak_table(data: dict) -> str:
    heads = [
        "variant",
        "worker",
        "leak B/req",
        "s",
        "requests",
        "PSS start → end MB",
        "slope MB/10k [95%]",
        "verdict",
        "heap blocks /10k",
        "malloc MB /10k",
        "sockets /10k",
    ]
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for name, v in data["variants"].items():
        for s in v.get("soak") or ():
            g = s["growth"]
            slope = (
                "–"
                if g["slope_mb_per_10k"] is None
                else f"{g['slope_mb_per_10k']:+.3f} [{g['low']:+.3f}, {g['high']:+.3f}]"
            )
            others = [
                _slope(s.get("growths", {}).get(k), digits)
                for k, digits in (("heap_blocks", 0), ("heap_malloc_mb", 2), ("sockets", 2))
            ]
            lines.append(
                "| "
                + " | ".join(
                    [
                        name,
                        v["worker"],
                        str(s["leak_bytes"]),
                        str(s["seconds"]),
                        f"{s['requests']:,}",
                        f"{s['pss_mb'][0]} → {s['pss_mb'][-1]}",
                        slope,
                        g["verdict"],
                        *others,
                    ]
                )
                + " |"
            )
    return "\n".join(lines) + "\n"


def _slope(g: dict | None, digits: int) -> str:
    """A column's growth per 10k requests and its verdict ("–": not sampled, earlier soaks)."""
    if not g or g["slope_mb_per_10k"] is None:
        return "–"
    return f"{g['slope_mb_per_10k']:+,.{digits}f} {g['verdict']}"


def render(write: bool = True) -> dict[Path, str]:
    """docs/memory.md (the sharing and footprint tables) and docs/lab/memory.md (the soak table) with their tables
    rendered from the summary alone; written unless ``write`` is False."""
    data = json.loads(SUMMARY.read_text())
    tables = (("sharing", sharing_table(data)), ("footprint", footprint_table(data)), ("soak", soak_table(data)))
    docs = {path: path.read_text() for path in dict.fromkeys(PAGES.values())}
    for part, table in tables:
        start, end = MARKS[part]
        doc = docs[PAGES[part]]
        if start in doc:
            head, rest = doc.split(start, 1)
            docs[PAGES[part]] = head + start + table + rest[rest.index(end) :]
        if write:
            print(table)
    if write:
        for path, doc in docs.items():
            path.write_text(doc)
    return docs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("footprint", "soak", "render"))
    parser.add_argument("--variants", default="")
    parser.add_argument("--conns", default="100,1000", help="idle keep-alive connections to hold, comma-separated")
    parser.add_argument("--seconds", type=int, default=30, help="a soak's measured window")
    parser.add_argument("--leak", default="0", help="SERVERBENCH_LEAK_BYTES values, comma-separated")
    parser.add_argument("--repeat", type=int, default=1, help="soaks per --leak value (A/A soaks: --leak 0)")
    args = parser.parse_args()
    # Thousands of held connections need as many descriptors in this process (the clients' ends).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if args.part == "render":
        render()
        return
    rows: dict = {}
    for name in args.variants.split(","):
        print(f"{name}:", flush=True)
        try:
            if args.part == "footprint":
                rows[name] = footprint(name, [int(n) for n in args.conns.split(",") if n])
            else:
                rows[name] = [
                    soak(name, int(leak), args.seconds) for leak in args.leak.split(",") for _ in range(args.repeat)
                ]
        except (ServerStartError, VerificationError, ServerDiedError, GeneratorError) as exc:
            print(f"  {name}: {str(exc).splitlines()[0]}", flush=True)
    merge(args.part, rows)


if __name__ == "__main__":
    main()
