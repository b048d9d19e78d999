"""The exact-merge check on real generator output: load split across simulated load hosts, each host's own latencies
kept, the record's percentiles against those of one list of all the requests, and against the hosts' averaged
(docs/hosts.md, "Load across hosts").

    sudo .venv/bin/python benchmarks/merge_check.py run       # about a minute of timed load: nothing else beside it
    .venv/bin/python benchmarks/merge_check.py render         # docs/hosts.md's block, from the results file

``run`` runs ``serverbench hosts simulate --load N --on-server -- python benchmarks/merge_check.py measure`` for 2 and 3 load
hosts.  ``measure`` runs in the server's namespace: it connects the inventory's hosts as a perf session does, starts
aiohttp bound to the server host's address and verifies it (the suite's ServerPool), and measures three trials through
the suite's own code (measure.trials.trial.measure, the drivers split across the load hosts): oha on /json at 64
connections, wrk on the book site's URL mix at 64 connections, locust's distributed mode on the book site with 50 users.
Each load host is handed to the driver inside a :class:`Kept` place, which passes every call to the host's own place
and keeps a copy of what the driver read back from it (oha's rows, wrk's printed histogram, locust's per-process
counts): so each host's own latencies are those the record was made from, and nothing else is run.  ``figures`` then
gives, for p50, p99 and p99.9: (a) the nearest-rank percentile of one sorted list of every request's latency,
(b) the record's, (c) each host's own, (d) the mean of (c) and its error against (a).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measured_block import rewrite  # noqa: E402 (a sibling script)

from serverbench.drivers.rank import nearest_rank  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks/results/merge-check.json"
DOC = ROOT / "docs/hosts.md"
LOADS = (2, 3)  # load hosts per simulation
PERCENTILES = (("p50", 50.0), ("p99", 99.0), ("p999", 99.9))
DURATION_S = 5
# The trials: (generator, workload, connections or users); the shapes the suite runs for each across hosts.
TRIALS = (("oha", "json", 64), ("wrk", "site", 64), ("locust", "site", 50))


# --- (a) to (d): pure -----------------------------------------------------------------------------------------------


def _nearest(ordered: Sequence[int], q: float) -> int:
    return ordered[nearest_rank(q, len(ordered)) - 1]


def figures(hosts: Mapping[str, Mapping], record: Mapping[str, float]) -> dict[str, dict]:
    """Per percentile (p50, p99, p999), in ms: ``whole`` (a), the nearest rank of one sorted list of every host's
    requests; ``record`` (b), what the record says; ``hosts`` (c), each host's own; ``mean`` (d), their average, and
    its error against (a).  ``hosts``: each host's latencies as a count per microsecond (keys may be strings, as read
    back from JSON); ``record``: the record's latency_ms."""
    lists = {name: sorted(int(us) for us, n in counts.items() for _ in range(int(n))) for name, counts in hosts.items()}
    if not lists or not all(lists.values()):
        raise ValueError(f"every host needs latencies; got counts of { ({k: len(v) for k, v in lists.items()}) }")
    whole = sorted(us for values in lists.values() for us in values)
    out = {}
    for key, q in PERCENTILES:
        a = _nearest(whole, q) / 1000.0
        own = {name: _nearest(values, q) / 1000.0 for name, values in lists.items()}
        mean = sum(own.values()) / len(own)
        out[key] = {
            "whole": a,
            "record": record[key],
            "equal": a == record[key],
            "hosts": own,
            "mean": round(mean, 4),
            "error_ms": round(mean - a, 4),
            "error_pct": round(100.0 * (mean - a) / a, 2),
        }
    return out


def record_us(latencies_ms: Sequence[float]) -> Counter:
    """Latencies in ms as counts per microsecond, each rounded as the record rounds a latency (to 3 decimals)."""
    return Counter(round(round(ms, 3) * 1000.0) for ms in latencies_ms)


# --- measure: in the server's namespace ------------------------------------------------------------------------------


@dataclasses.dataclass(eq=False)
class Kept:
    """A load host's place (hosts.places.HostPlace) that passes every call on to it, keeping a copy of what the driver
    read back: files read (oha's database), files collected (locust's per-process counts), runs' output (wrk's
    histogram).  It measures nothing itself."""

    place: object
    read_back: dict = dataclasses.field(default_factory=dict)
    outputs: list = dataclasses.field(default_factory=list)

    def __getattr__(self, name: str):
        if name == "place":  # not set yet (a copy being made): no place to pass it to
            raise AttributeError(name)
        return getattr(self.place, name)

    def read(self, path: str) -> bytes:
        self.read_back[path] = data = self.place.read(path)
        return data

    def collect(self, folder: str, patterns: Sequence[str]) -> dict[str, bytes]:
        files = self.place.collect(folder, patterns)
        self.read_back.update(files)
        return files

    def run(self, argv, timeout, cpus=None, env=None, main_thread=False):
        done = self.place.run(argv, timeout, cpus, env, main_thread)
        self.outputs.append(done.stdout)
        return done

    def forget(self) -> None:
        self.read_back.clear()
        self.outputs.clear()


def _oha_ms(kept: Kept, lead_s: float, duration_s: float) -> list[float]:
    """The host's requests sent in the window (oha's rows: send time in [lead, lead + duration)), in ms, as the
    driver computes them (drivers.oha.window_report)."""
    from serverbench.drivers.oha import read_rows

    (data,) = [d for path, d in kept.read_back.items() if path.endswith("requests.db")]
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "requests.db"
        db.write_bytes(data)
        rows = read_rows(db)
    return [(end - start) * 1000.0 for start, end, _, _ in rows if lead_s <= start < lead_s + duration_s]


def _host_counts(generator: str, kept: Kept, driver) -> tuple[Counter, dict]:
    """One host's latencies as the driver read them back (a count per microsecond), and for oha its exact ones."""
    if generator == "oha":
        ms = _oha_ms(kept, float(driver.lead_s), float(DURATION_S))
        return record_us(ms), {"ms": ms}
    if generator == "wrk":
        from serverbench.drivers.wrk import HIST_MARKER, parse_histogram

        (out,) = [o for o in kept.outputs if HIST_MARKER in o]
        return Counter(parse_histogram(out)), {}
    counts: Counter = Counter()
    for name, data in kept.read_back.items():
        if name.startswith("gaps-"):
            counts.update({int(us): n for us, n in json.loads(data)["latency_us"].items()})
    return counts, {}


def _unrounded(exact: Mapping[str, list[float]], latency_ms: Mapping[str, float]) -> dict:
    """oha's percentiles before the record rounds them: of one sorted list of every host's float latencies, and the
    driver's report's (its LoadReport, in memory)."""
    whole = sorted(ms for values in exact.values() for ms in values)
    return {key: {"whole": whole[nearest_rank(q, len(whole)) - 1], "report": latency_ms[key]} for key, q in PERCENTILES}


def measure(out: Path) -> None:
    from serverbench.catalog.matrix import Cell
    from serverbench.catalog.shapes import LoadShape
    from serverbench.catalog.variants import registry
    from serverbench.catalog.workloads import WORKLOADS
    from serverbench.drivers.base import driver_for
    from serverbench.hosts.connected import ConnectedHosts
    from serverbench.hosts.inventory import ENV_VAR
    from serverbench.measure.host.machine import machine_info, python_info
    from serverbench.measure.serving.servers import ServerPool, start_variant
    from serverbench.measure.trials.trial import Trial
    from serverbench.measure.trials.trial import measure as measure_trial

    hosts = ConnectedHosts.from_file(os.environ[ENV_VAR]).open()
    kept = tuple(Kept(place) for place in hosts.places)
    variant = registry()["aiohttp"]
    specs = list(dict.fromkeys(WORKLOADS["json"].specs + WORKLOADS["site"].specs))
    pool = ServerPool(
        lambda cell: start_variant(
            cell.variant, app=cell.app, apps_dir=ROOT / "apps", timeout=60, host=hosts.server_address
        ),
        specs,
    )
    data: dict = {"load_hosts": len(kept), "trials": {}}
    try:
        server = pool.get(Cell(variant, variant.default_app))
        for generator, workload, n in TRIALS:
            if generator == "locust":
                shape = LoadShape(n, DURATION_S, workers=0)
            else:
                shape = LoadShape(n, DURATION_S)
            driver = driver_for(shape, closed="oha", one_url=not WORKLOADS[workload].mix, places=kept)
            if driver.name != generator:
                raise SystemExit(f"the suite chose {driver.name} for {generator}'s trial: TRIALS needs updating")
            for place in kept:
                place.forget()
            machine = machine_info(f"{driver.name}-{driver.version}-{len(kept)}load")  # as a perf session names it
            names = (
                f"merge_check::{generator}",
                "merge_check",
                machine,
                python_info(),
            )  # nodeid, test, machine, python
            result = measure_trial(Trial(server, WORKLOADS[workload], shape, driver, *names))
            record = result.to_record()
            counts, exact = {}, {}
            for place in kept:
                counts[place.name], extra = _host_counts(generator, place, driver)
                if "ms" in extra:
                    exact[place.name] = extra["ms"]
            counts = {name: c for name, c in counts.items() if c}  # a host that sent nothing has no percentile
            shares = {h["name"]: h["share"] for h in record["generator"].get("hosts", [])}
            entry = {
                "workload": workload,
                "shape": shape.label,
                "version": driver.version,
                "requests": record["requests"],
                "record_latency_ms": {k: record["latency_ms"][k] for k, _ in PERCENTILES},
                "hosts": {name: {"share": shares.get(name), "requests": sum(c.values())} for name, c in counts.items()},
                "figures": figures(counts, record["latency_ms"]),
            }
            if exact:
                entry["unrounded"] = _unrounded(exact, result.load.latency_ms)
            data["trials"][generator] = entry
            print(
                f"{len(kept)} load hosts, {generator}: {record['requests']:,} requests, "
                + ", ".join(f"{k} {v['whole']} = {v['record']} ({v['equal']})" for k, v in entry["figures"].items()),
                flush=True,
            )
    finally:
        pool.close()
        hosts.close()
    out.write_text(json.dumps(data, indent=1) + "\n")


# --- run: outside, as root -------------------------------------------------------------------------------------------


def run(out: Path, loads: Sequence[int] = LOADS) -> None:
    data: dict = {
        "date": datetime.date.today().isoformat(),
        "machine": f"{os.cpu_count()} cores, {platform.machine()}",
        "runs": [],
    }
    for load in loads:
        with tempfile.TemporaryDirectory(prefix="serverbench-merge-check-") as tmp:
            got = Path(tmp) / "measured.json"
            command = [
                sys.executable,
                "-m",
                "serverbench",
                "hosts",
                "simulate",
                "--load",
                str(load),
                "--on-server",  # measure starts its server where it runs: in the server host's namespace
                "--",
                sys.executable,
                str(Path(__file__).resolve()),
                "measure",
                "--out",
                str(got),
            ]
            started = time.monotonic()
            done = subprocess.run(command, cwd=ROOT)
            wall = time.monotonic() - started
            if done.returncode != 0 or not got.exists():
                raise SystemExit(f"`{' '.join(command)}` failed (exit {done.returncode}); its output is above")
            data["runs"].append({**json.loads(got.read_text()), "wall_s": round(wall, 1)})
            print(f"{load} load hosts: {wall:.0f} s", flush=True)
    out.write_text(json.dumps(data, indent=1) + "\n")


# --- render ----------------------------------------------------------------------------------------------------------

NAMES = {"p50": "p50", "p99": "p99", "p999": "p99.9"}


def _ms(value: float) -> str:
    return f"{value:.3f}"


def table(data: dict) -> str:
    """Per run and generator: (a), (b), whether they are equal, each host's own, their mean and its error; then how
    many rows hold (a) = (b), and the largest error of averaging."""
    runs = data["runs"]
    walls = ", ".join(f"{r['load_hosts']} load hosts {r['wall_s']:.0f} s" for r in runs)
    lines = [
        f"Measured by `sudo .venv/bin/python benchmarks/merge_check.py run` on {data['date']} ({data['machine']}; "
        f"each simulation's wall time: {walls}). aiohttp on the server host; each generator split across the load "
        f"hosts by the suite's own drivers, {DURATION_S} s windows; latencies in ms:",
        "",
        "| load hosts | generator | cell | requests per host (share) | pct | all requests, one list (a) "
        "| the record (b) | (a) = (b) | each host's own (c) | mean of the hosts (d) | (d) - (a) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    rows, exact, summed = [], [], []
    for r in runs:
        for generator, t in r["trials"].items():
            requests = " / ".join(f"{h['requests']:,} ({h['share']})" for h in t["hosts"].values())
            for i, (key, f) in enumerate(t["figures"].items()):
                rows.append((r["load_hosts"], generator, key, f))
                lines.append(
                    f"| {r['load_hosts']} | {generator} | {t['workload']} {t['shape']} | {requests if not i else ''} "
                    f"| {NAMES[key]} | {_ms(f['whole'])} | {_ms(f['record'])} "
                    f"| {'yes' if f['whole'] == f['record'] else '**no**'} "
                    f"| {' / '.join(_ms(v) for v in f['hosts'].values())} | {f['mean']:.3f} "
                    f"| {f['error_ms']:+.3f} ({f['error_pct']:+.1f}%) |"
                )
            exact += [u["whole"] == u["report"] for u in t.get("unrounded", {}).values()]
            summed.append(sum(h["requests"] for h in t["hosts"].values()) == t["requests"])
    load, generator, key, f = max(rows, key=lambda row: abs(row[3]["error_pct"]))
    lines += [
        "",
        f"(a) equals (b) in {sum(f['whole'] == f['record'] for *_, f in rows)} of {len(rows)} rows; oha's percentiles "
        f"also before the record rounds them to the microsecond, float for float, in {sum(exact)} of {len(exact)}; "
        f"the hosts' requests add up to the record's in {sum(summed)} of {len(summed)} trials. "
        f"The largest error of averaging: {generator} on {load} load hosts, {NAMES[key]} {f['mean']:.3f} ms averaged "
        f"against {_ms(f['whole'])} ms of all the requests ({f['error_pct']:+.1f}%), its hosts' own "
        f"{_ms(min(f['hosts'].values()))} to {_ms(max(f['hosts'].values()))} ms.",
    ]
    return "\n".join(lines) + "\n"


def render(write: bool = True) -> dict[Path, str]:
    """docs/hosts.md with its merge-check block rendered from the results file; written when ``write``."""
    return rewrite(DOC, "merge-check", table(json.loads(RESULTS.read_text())), write)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["run", "measure", "render"])
    parser.add_argument("--out", type=Path, default=RESULTS, help="run, measure: the results file to write")
    parser.add_argument("--loads", default=",".join(map(str, LOADS)), help="run: load hosts per simulation, e.g. 2,3")
    args = parser.parse_args()
    if args.action == "measure":
        measure(args.out)
    elif args.action == "run":
        run(args.out, [int(n) for n in args.loads.split(",")])
    if args.action == "render" or (args.action == "run" and args.out == RESULTS):
        render()


if __name__ == "__main__":
    main()
