"""The suite's own fault census: a perf session interrupted at each moment leaves nothing behind.

Each case runs a real perf session (one fast variant, two workloads, 1 s windows) as a child
process, watches it from outside (its process tree, listening sockets, the files it writes),
and at the chosen moment sends SIGINT (or SIGKILL to pytest itself).  Afterwards no process of
the session may be left (checked by pid and start time, by process group and by an
environment marker every child inherits), the records written are valid and complete, and the
baseline file is the old one or the old one merged with this session's cells, never a mix.
The gate's base worktree is checked the same way on each exit path.

The default run takes a representative subset; ``-m "census or not census"`` runs all twenty
moments and the live gate (docs/lab/robustness.md holds the table).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import psutil
import pytest

from serverbench.drivers.base import closed_driver
from serverbench.measure.host.machine import machine_info
from serverbench.records import results as results_file
from serverbench.records.baselines import BaselineStore

# The gate-worktree tests start no server and time nothing (a worktree, a signal, git): they run beside others.  So do
# the default moments and the SIGKILL test: each is aimed at something seen from outside (a process started, a file
# written) or a fraction of a window after it, which a test beside them delays but does not move to another phase, and
# what they check (nothing left, records and baseline whole) does not depend on time.  The full census keeps the machine.
TIMED = pytest.mark.alone(reason="each interruption is aimed at a moment of a timed session")
APPS = Path(__file__).parents[3] / "apps"
MARKER = "SERVERBENCH_CENSUS"  # every process of a watched session inherits it
PERF_TEST = '''
import pytest

@pytest.mark.perf
def test_throughput(perf_trial):
    """The variant serves the workload."""
    perf_trial()
'''
CLOSED_DRIVER = "wrk"  # the moments below are wrk's phases (a warm-up run, then the window's own run)
FAST = [
    "-m",
    "perf",
    "-v",
    "-p",
    "no:cacheprovider",
    "--perf-variants=aiohttp",
    "--perf-duration=1",
    "--perf-warmup=1",
    "--perf-warmup-rounds=1",
    "--perf-connections=8",
    "--perf-threads=1",
    "--perf-json=out/records.json",
    "--perf-html=out/report.html",
    "--perf-save-baseline",
    "--perf-baseline-dir=baselines",
    f"--perf-closed-driver={CLOSED_DRIVER}",
]
OLD_CELLS = 20  # cells of the old baseline (the big one of the baseline-save moments: 200,000)


class Watched:
    """A perf session (or a gate) run as a child process and observed from outside."""

    def __init__(self, folder: Path, argv: list[str]):
        self.folder = folder
        self.token = uuid.uuid4().hex
        self.tmp = folder / "tmp"  # the session's TMPDIR: its servers' logs, nginx's prefix, SecantusDB's data
        self.tmp.mkdir()
        env = {**os.environ, MARKER: self.token, "TMPDIR": str(self.tmp)}
        self.log = folder / "session.log"
        with open(self.log, "wb") as log:  # a file, not a pipe: a full pipe would stall the session
            self.process = (
                subprocess.Popen(  # Ctrl-C's default restored: see test_gate_worktree_removed_on_every_exit_path
                    argv,
                    cwd=folder,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                    preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                )
            )
        self.seen: dict[int, tuple[float, int, str]] = {}  # pid: (start time, process group, command line)
        self.gone: set[int] = set()
        self.started = time.monotonic()

    def poll(self) -> None:
        """Note the session's processes now (remembering every one ever seen)."""
        alive = set()
        for pid in _descendants(self.process.pid):
            try:  # the command line is read again each time: a child seen between fork and exec looks like pytest
                p = psutil.Process(pid)
                command = " ".join(p.cmdline()) or self.seen.get(pid, (0, 0, ""))[2]  # an exiting one reads empty
                self.seen[pid] = (p.create_time(), os.getpgid(pid), command)
                alive.add(pid)
            except (psutil.Error, ProcessLookupError):
                continue
        self.gone |= set(self.seen) - alive

    def commands(self, fragment: str) -> list[int]:
        """The pids seen whose command line holds ``fragment``, in order of appearance."""
        return [pid for pid, (_, _, cmd) in sorted(self.seen.items(), key=lambda kv: kv[1][0]) if fragment in cmd]

    def wait_for(self, moment: Callable[[Watched], bool], timeout: float = 60.0) -> float:
        """Poll until ``moment`` holds; the seconds since the session started."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.poll()
            if moment(self):
                return time.monotonic() - self.started
            if self.process.poll() is not None:
                seen = "\n".join(cmd[:100] for _, _, cmd in sorted(self.seen.values()))
                raise AssertionError(f"the session ended before the moment; it ran:\n{seen}\n{self.output()}")
            time.sleep(0.01)
        raise AssertionError(f"the moment did not come within {timeout:g} s")

    def end(self, timeout: float = 60.0) -> int:
        """Wait for the session to exit (nothing may hang); its exit status."""
        deadline = time.monotonic() + timeout
        while self.process.poll() is None:
            self.poll()
            if time.monotonic() > deadline:
                alive = "\n".join(cmd[:120] for pid, (_, _, cmd) in sorted(self.seen.items()) if pid not in self.gone)
                os.killpg(self.process.pid, signal.SIGKILL)
                # reaped here: a Popen left running warns when collected, and that warning failed the next test
                self.process.wait(timeout=10)
                raise AssertionError(
                    f"the session did not exit within {timeout:g} s of the signal; still running then:\n{alive}\n"
                    f"the end of its output:\n{self.output()[-3000:]}"
                )
            time.sleep(0.02)
        return self.process.returncode

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.process.poll() is not None else ""

    def leftovers(self, grace: float = 10.0) -> list[str]:
        """Processes of the session still running after ``grace`` seconds: by pid (same start time), by
        process group, by the environment marker."""
        deadline = time.monotonic() + grace
        while True:
            left = self._left()
            if not left or time.monotonic() > deadline:
                return left
            time.sleep(0.1)

    def _left(self) -> list[str]:
        groups = ({group for _, group, _ in self.seen.values()} | {self.process.pid}) - {os.getpgid(0)}
        left = []
        for p in psutil.process_iter(["pid", "create_time", "status", "cmdline"]):
            try:
                if p.info["status"] == psutil.STATUS_ZOMBIE or p.pid == os.getpid():
                    continue
                known = p.pid in self.seen and abs(self.seen[p.pid][0] - p.info["create_time"]) < 0.01
                grouped = os.getpgid(p.pid) in groups
                marked = not known and not grouped and p.environ().get(MARKER) == self.token
                if known or grouped or marked:
                    why = "pid" if known else "group" if grouped else "marker"
                    left.append(f"{p.pid} ({why}) {' '.join(p.info['cmdline'] or [])[:100]}")
            except (psutil.Error, ProcessLookupError):
                continue
        return left


def stopped_at(watched: Watched, moment: Callable[[Watched], bool], how: str, repo: Path, within: float = 20.0) -> int:
    """Send ``how`` (SIGTERM, SIGINT) at ``moment``; its exit status, once it ended within ``within`` seconds with no
    process, no worktree of ``repo`` and nothing in its temporary folder left (killed outright if it did not end)."""
    try:
        watched.wait_for(moment, timeout=120)
        watched.process.send_signal(getattr(signal, how))
        status = watched.end(timeout=within)
    finally:
        if watched.process.poll() is None:
            os.killpg(watched.process.pid, signal.SIGKILL)
    output, left = watched.output()[-2000:], watched.leftovers()
    assert not left, f"processes left after {how}: {left}\n{output}"
    assert _worktrees(repo) == [], f"worktree left after {how}: {_worktrees(repo)}\n{output}"
    assert os.listdir(watched.tmp) == [], f"left in the temporary folder: {os.listdir(watched.tmp)}\n{output}"
    return status


def _descendants(pid: int) -> list[int]:
    """Every descendant of ``pid``, read from /proc's per-thread children lists (cheap enough to poll every
    10 ms, unlike a scan of every process)."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{parent}/task/{tid}/children") as f:
                    kids = [int(k) for k in f.read().split()]
            except OSError:
                continue
            found += kids
            todo += kids
    return found


def _perf_session(folder: Path, workloads: str) -> Watched:
    return Watched(folder, [sys.executable, "-m", "pytest", *FAST, f"--perf-workloads={workloads}"])


def _project(folder: Path, old_cells: int = OLD_CELLS) -> Path:
    """A pytest project with the perf test and an old baseline of ``old_cells`` cells; the baseline's path."""
    (folder / "pytest.ini").write_text(f"[pytest]\nperf_apps_dir = {APPS}\n")
    (folder / "test_perf.py").write_text(PERF_TEST)
    driver, _ = closed_driver(CLOSED_DRIVER)  # the session's: the machine id, so the file name, names it
    machine = machine_info(f"{driver.name}-{driver.version}")
    store = BaselineStore(folder / "baselines", machine)
    entries = {
        f"old/cell/{i}/c8": {
            "rps": 1000.0 + i,
            "error_rate": 0.0,
            "p50_ms": 1.0,
            "p99_ms": 2.0,
            "recorded_at": "2026-01-01T00:00:00+00:00",
        }
        for i in range(old_cells)
    }
    store.path.parent.mkdir()
    store.path.write_text(json.dumps({"schema": 1, "machine": machine, "entries": entries}))
    return store.path


@dataclass(frozen=True)
class Moment:
    """When to interrupt: a condition observed from outside, then a delay."""

    name: str
    phase: str
    when: Callable[[Watched], bool]
    delay: float = 0.0
    workloads: str = "json,plaintext"
    old_cells: int = OLD_CELLS
    second_sigint: float | None = None  # seconds after the first: Ctrl-C pressed twice


def _appeared(fragment: str, nth: int = 1) -> Callable[[Watched], bool]:
    return lambda w: len(w.commands(fragment)) >= nth


def _ended(fragment: str, nth: int) -> Callable[[Watched], bool]:
    return lambda w: len(w.commands(fragment)) >= nth and w.commands(fragment)[nth - 1] in w.gone


def _exists(relative: str) -> Callable[[Watched], bool]:
    return lambda w: any(w.folder.glob(relative))


def _listening(w: Watched) -> bool:
    for pid in w.commands("aiohttp"):
        try:
            if any(c.status == psutil.CONN_LISTEN for c in psutil.Process(pid).net_connections("tcp")):
                return True
        except psutil.Error:
            continue
    return False


def _replaced(w: Watched) -> bool:
    """The baseline file was renamed over (a new inode): the save is done, teardown is next."""
    inode = next((w.folder / "baselines").glob("*.json")).stat().st_ino
    return inode != w.__dict__.setdefault("baseline_inode", inode)


SERVER = "aiohttp"  # in the server's command line (serverbench.serverside.launch ... aiohttp)
WRK = "wrk -t"
MOMENTS = [
    Moment("redis-server starting", "start", _appeared("redis-server"), workloads="redis,json"),
    Moment("SecantusDB starting", "start", _appeared("secantus"), workloads="mongo-small,json"),
    Moment("nginx upstream starting", "start", _appeared("nginx"), workloads="upstream,json"),
    Moment("server spawned", "start", _appeared(SERVER)),
    Moment("server importing its app", "start", _appeared(SERVER), delay=0.3),
    Moment("server listening, being verified", "verify", _listening),
    Moment("warm-up wrk started", "warm-up", _appeared(WRK, 1)),
    Moment("warm-up half done", "warm-up", _appeared(WRK, 1), delay=0.5),
    Moment("measured wrk started", "measure", _appeared(WRK, 2)),
    Moment("measured window half done", "measure", _appeared(WRK, 2), delay=0.5),
    Moment("measured wrk ended (judging)", "measure", _ended(WRK, 2)),
    Moment("2nd test warming up (1 result recorded)", "warm-up", _appeared(WRK, 3)),
    Moment("2nd test measuring", "measure", _appeared(WRK, 4), delay=0.5),
    Moment("Ctrl-C twice while measuring", "measure", _appeared(WRK, 4), delay=0.5, second_sigint=0.2),
    Moment("last wrk ended (session finishing)", "report", _ended(WRK, 4)),
    Moment("records written (HTML being built)", "report", _exists("out/records.json")),
    Moment("HTML written", "report", _exists("out/report.html")),
    Moment("baseline temp file being written", "baseline save", _exists("baselines/.*.tmp"), old_cells=200_000),
    Moment("baseline replaced (servers stopping)", "baseline save", _replaced, old_cells=200_000),
    Moment("server stopped (teardown, redis stopping)", "teardown", _ended(SERVER, 1), workloads="json,redis"),
]
DEFAULT = {
    "server importing its app",
    "measured window half done",
    "2nd test warming up (1 result recorded)",
    "baseline temp file being written",
}


def _census_params():
    for m in MOMENTS:
        marks = () if m.name in DEFAULT else (pytest.mark.census, TIMED)
        yield pytest.param(m, id=m.name.split(" (")[0].replace(" ", "-").replace(",", ""), marks=marks)


@pytest.mark.parametrize("moment", list(_census_params()))
def test_interrupted_session_leaves_nothing_behind(tmp_path, moment):
    """SIGINT at this moment: the session exits, no process of it is left, records and baseline are whole."""
    baseline = _project(tmp_path, moment.old_cells)
    old = baseline.read_bytes()
    session = _perf_session(tmp_path, moment.workloads)
    try:
        at = session.wait_for(moment.when)
        time.sleep(moment.delay)
        session.poll()
        generators = len(session.commands(WRK))  # wrk runs seen by then: says which phase was hit
        session.process.send_signal(signal.SIGINT)
        if moment.second_sigint is not None:
            time.sleep(moment.second_sigint)
            session.process.send_signal(signal.SIGINT)
        status = session.end()
    finally:
        if session.process.poll() is None:
            os.killpg(session.process.pid, signal.SIGKILL)
    output = session.output()
    row = {**_census_row(moment, at, status, session, output, baseline, old), "wrk_seen": generators}
    _report(row)
    assert not row["left"], f"processes left after SIGINT at {moment.name!r}: {row['left']}\n{output[-3000:]}"
    assert row["records"].startswith(("valid", "none")), f"{row['records']}\n{output[-3000:]}"
    assert row["baseline"] in ("old", "old + new"), f"{row['baseline']}\n{output[-3000:]}"
    assert not row["temp files"], f"temporary files left: {row['temp files']}"
    assert not row["other baselines"], f"the session saved to another machine's file: {row['other baselines']}"
    assert not row["tmp left"], f"left in the session's TMPDIR: {row['tmp left']}"


def _census_row(
    moment: Moment, at: float, status: int, session: Watched, output: str, baseline: Path, old: bytes
) -> dict:
    passed = output.count(" PASSED")
    return {
        "moment": moment.name,
        "phase": moment.phase,
        "at_s": round(at + moment.delay, 2),
        "exit": status,
        "passed": passed,
        "left": session.leftovers(),
        "records": _records_state(session.folder, passed),
        "baseline": _baseline_state(baseline, old, passed),
        "temp files": [str(p) for p in session.folder.rglob(".*.tmp")],
        "other baselines": sorted(p.name for p in baseline.parent.glob("*.json") if p != baseline),
        "tmp left": sorted(p.name for p in session.tmp.iterdir()),
    }


def _records_state(folder: Path, passed: int) -> str:
    """'valid: N results' when the records file reads back holding every passed test, 'none' when no
    file was written and no test had passed, else what is wrong."""
    path, html = folder / "out" / "records.json", folder / "out" / "report.html"
    if html.exists() and not html.read_text().rstrip().endswith("</html>"):
        return "HTML report cut short"
    if not path.exists():
        return "none" if passed == 0 else f"missing: {passed} test(s) passed but no records file"
    try:
        stored = results_file.read(path)
    except results_file.ResultsFileError as exc:
        return f"invalid: {exc}"
    if len(stored.results) != passed:
        return f"incomplete: {len(stored.results)} results for {passed} passed test(s)"
    return f"valid: {passed} result(s)" + (", HTML" if html.exists() else "")


def _baseline_state(path: Path, old: bytes, passed: int) -> str:
    """'old' (untouched), 'old + new' (every old cell kept, every passed test's cell added), else a mix."""
    now = path.read_bytes()
    if now == old:
        return "old"
    try:
        before, after = json.loads(old)["entries"], json.loads(now)["entries"]
    except (ValueError, KeyError) as exc:
        return f"unreadable: {exc}"
    added = set(after) - set(before)
    if set(before) <= set(after) and len(added) == passed:
        return "old + new"
    return f"mixed: {len(set(before) - set(after))} old cells lost, {len(added)} added for {passed} passed"


def _report(row: dict) -> None:
    """The census row, for docs/lab/robustness.md (shown with -s, and kept in SERVERBENCH_CENSUS_LOG if set)."""
    line = json.dumps(row)
    print(line)
    log = os.environ.get("SERVERBENCH_CENSUS_LOG")
    if log:
        with open(log, "a") as f:
            f.write(line + "\n")


def test_killed_pytest_takes_its_servers_backends_and_generators_along(tmp_path):
    """SIGKILL of pytest while it measures: the server, Redis, SecantusDB, nginx and wrk all end."""
    _project(tmp_path)
    session = _perf_session(tmp_path, "json,redis,mongo-small,upstream")
    try:
        session.wait_for(_appeared(WRK, 2))
        session.process.kill()
        session.end()
    finally:
        if session.process.poll() is None:
            os.killpg(session.process.pid, signal.SIGKILL)
    kinds = {k: bool(session.commands(k)) for k in ("redis-server", "secantus", "nginx", SERVER, WRK)}
    assert all(kinds.values()), f"not every kind of process ran before the kill: {kinds}"
    left = session.leftovers()
    _report({"moment": "SIGKILL of pytest while measuring", "phase": "measure", "left": left, "kinds": kinds})
    assert not left, f"processes left after SIGKILL of pytest: {left}"


SAVER = """
import sys, time
from pathlib import Path
from serverbench.catalog.shapes import LoadShape
from serverbench.records.baselines import BaselineStore
from serverbench.records.schema import Generator, LoadReport, Result

folder, prefix, rounds, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
latency = {k: 1.0 for k in ("p50", "p75", "p90", "p99", "p999", "max", "mean", "stdev")}
errors = {k: 0 for k in ("connect", "read", "write", "timeout", "status")}
store = BaselineStore(Path(folder), {"id": "m1"})
while not go.exists():
    time.sleep(0.001)
for i in range(rounds):
    load = LoadReport("wrk", 5000, 5.0, 0, latency, errors)
    store.save([Result(nodeid="t[x]", test="t", variant=prefix, app="a", workload=str(i), shape=LoadShape(8, 5),
                       warmup_s=0, url="http://127.0.0.1:1/json", load=load,
                       generator=Generator("wrk", "4.1.0", 2, 1.0, 5.0, 2), server_cpu_s=2.0, server_rss_mb=40.0,
                       machine={"id": "m1"}, python={}, timestamp="2026-11-23T00:00:00+00:00")])
"""


@pytest.mark.alone(reason="the two savers race only while both have a core")
def test_two_sessions_saving_baselines_at_once_lose_nothing(tmp_path):
    """Two processes each saving 40 cells one at a time into the same baseline file: all 80 are kept."""
    go = tmp_path / "go"
    savers = [
        subprocess.Popen([sys.executable, "-c", SAVER, str(tmp_path / "baselines"), name, "40", str(go)])
        for name in ("first", "second")
    ]
    time.sleep(0.5)  # both imported and waiting
    go.touch()
    assert [s.wait(timeout=120) for s in savers] == [0, 0]
    kept = BaselineStore(tmp_path / "baselines", {"id": "m1"}).load()
    assert len(kept) == 80, f"{80 - len(kept)} of 80 cells lost between two sessions saving at once"
    assert not list((tmp_path / "baselines").glob(".*.tmp"))


GATE_HOLDS = """
import sys, time
from pathlib import Path
from serverbench.processes.stopping import terminating_through_finally
from serverbench.measure.trees.worktree import worktree
with terminating_through_finally(), worktree("HEAD", Path(sys.argv[1])) as path:
    print(path, flush=True)
    if sys.argv[2] == "raise":
        sys.stdin.read()  # the test has seen the worktree: now fail
        raise RuntimeError("a failure inside the gate")
    time.sleep(120)
"""


@pytest.fixture
def repo(tmp_path) -> Path:
    """A git repository with one commit holding a copy of the Python apps."""
    path = tmp_path / "repo"
    shutil.copytree(APPS, path / "apps", ignore=shutil.ignore_patterns("node", "play", "__pycache__"))
    for argv in (
        ["init", "-q"],
        ["add", "apps"],
        ["-c", "user.name=census", "-c", "user.email=census@localhost", "commit", "-q", "-m", "apps"],
    ):
        subprocess.run(["git", "-C", str(path), *argv], check=True, capture_output=True)
    return path


def _worktrees(repo: Path) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(repo), "worktree", "list", "--porcelain"], capture_output=True, text=True, check=True
    ).stdout
    return [line.split(" ", 1)[1] for line in out.splitlines() if line.startswith("worktree ")][1:]


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM", "raise"])
def test_gate_worktree_removed_on_every_exit_path(repo, how):
    """The gate's base worktree is removed when the gate is interrupted, terminated or fails."""
    # Ctrl-C's default restored in the child: a shell that started this session in the background (`cmd &`) ignores
    # SIGINT, the child inherits that, and Python then installs no KeyboardInterrupt (a rehearsal waited out 120 s).
    with subprocess.Popen(
        [sys.executable, "-c", GATE_HOLDS, str(repo), how],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    ) as gate:
        path = Path(gate.stdout.readline().strip())
        assert path.is_dir() and _worktrees(repo) == [str(path)]
        if how == "raise":  # it raises once its stdin closes: not before the worktree was seen (it raced the look)
            gate.stdin.close()
        else:
            gate.send_signal(getattr(signal, how))
        gate.wait(timeout=30)
    assert _worktrees(repo) == [] and not path.exists(), f"worktree left after {how}: {_worktrees(repo)}"


def test_gate_killed_outright_leaves_a_worktree_the_next_run_removes(repo, capsys):
    """SIGKILL of the gate leaves its worktree (nothing runs in a killed process); the next gate removes it,
    names it, and keeps the worktree of a gate still running."""
    from serverbench.measure.trees.worktree import prune_stale_worktrees, worktree

    with subprocess.Popen(
        [sys.executable, "-c", GATE_HOLDS, str(repo), "hold"], stdout=subprocess.PIPE, text=True
    ) as gate:
        path = Path(gate.stdout.readline().strip())
        gate.kill()
    assert _worktrees(repo) == [str(path)]
    with worktree("HEAD", repo) as fresh:
        assert _worktrees(repo) == [str(fresh)] and not path.exists()
        assert prune_stale_worktrees(repo) == []  # this run's own worktree: its gate is running
    assert _worktrees(repo) == []
    assert (
        f"note: removed the stale base worktree {path} of a gate (pid {gate.pid}) that was killed"
        in capsys.readouterr().err
    )


@TIMED
@pytest.mark.census
@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM"])
def test_gate_stopped_while_measuring_leaves_nothing_behind(repo, how):
    """A live gate (base worktree, two servers, wrk) stopped mid-measurement: every process ends and the
    worktree is removed."""
    gate = Watched(
        repo,
        [
            sys.executable,
            "-m",
            "serverbench",
            "gate",
            "--variant",
            "aiohttp",
            "--workload",
            "json",
            "--base-ref",
            "HEAD",
            "--repo",
            str(repo),
            "--duration",
            "1",
            "--warmup",
            "0",
            "--connections",
            "8",
            "--cost-repeats",
            "0",
            "--blocks",
            "9",
        ],
    )
    try:
        gate.wait_for(_appeared(WRK, 3))
        gate.process.send_signal(getattr(signal, how))
        status = gate.end()
    finally:
        if gate.process.poll() is None:
            os.killpg(gate.process.pid, signal.SIGKILL)
    output, left = gate.output(), gate.leftovers()
    _report(
        {
            "moment": f"gate: {how} while measuring",
            "phase": "gate",
            "exit": status,
            "left": left,
            "worktrees": _worktrees(repo),
        }
    )
    assert not left, f"processes left after {how} of the gate: {left}\n{output[-2000:]}"
    assert _worktrees(repo) == [], f"worktree left after {how}: {_worktrees(repo)}\n{output[-2000:]}"
