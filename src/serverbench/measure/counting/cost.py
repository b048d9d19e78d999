"""Count the instructions a server spends per request: one cell under valgrind's callgrind.

The server starts under callgrind with counting off (see :mod:`.callgrind`) in a fixed
environment, is verified against the contract and warmed up; counting is switched on in every
process, ``requests`` sequential requests are sent by the quiet-waiting client of
:mod:`.sequential`, and the counts are dumped.  Start-up, warm-up and shutdown are never counted,
so one run gives the per-request figure.  A pre-fork server's workers warm up one at a time and
one of them serves the window (:mod:`.workers`).  What stays non-deterministic is time-driven
housekeeping (a loop that wakes every 100 ms, a Date header re-rendered each second); the A/A
benchmark (benchmarks/cost_spread.py) reports it per variant.
"""

from __future__ import annotations

import functools
import glob
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from ...catalog.apps import App
from ...catalog.contract import Endpoint
from ...catalog.variants import Variant
from ...catalog.workloads import Workload
from ...errors import VerificationError
from ...processes.executors import LOOPBACK, free_port
from ...processes.ports import PORTS_ENV
from ...records.cost import CostRecord, FunctionCost, ProcessCount
from ..serving.bytecode import app_paths, compile_server
from ..serving.servers import start_variant
from ..serving.verify import verify
from ..trees.packages import Owners, installed_versions
from . import callgrind
from .callgrind import CountingError, Dump
from .fixedpaths import Staged, fixed_paths
from .isa import counted_isa_level
from .marks import Marks
from .peers import backend_names
from .sequential import SequentialClient, quiet, server_pids
from .workers import accepting_workers, paused, settled

START_TIMEOUT_S = 180.0
STACK_BLOCK = 4096  # bytes of arguments plus environment every counted server starts with
PAD_VARIABLE = "SERVERBENCH_STACK_PAD"
# The harness's own settings, not knobs of the app: an xdist worker's port range would be one more variable in the
# server's environment under `-n 2` than under `-n 0`, and one more variable moves where the heap's objects land.
HARNESS_VARIABLES = frozenset({PAD_VARIABLE, PORTS_ENV})


@dataclass(frozen=True)
class CostPlan:
    """One cell to count: variant serving app, the workload's request, how many requests.

    ``workload`` is a reference workload or a user's endpoint (``UserApp.workloads``: its ``own``
    endpoint, method, headers, body and expected status); :attr:`endpoint` is what is verified and sent.
    ``apps_dir`` is the folder the app is imported from (the reference ``apps/`` or the user's project):
    its modules and packages are the ``app`` role of the attribution.
    """

    variant: Variant
    app: App
    workload: Workload
    requests: int = 200
    warmup: int = 200  # enough that each pre-fork worker has run its request path past quickening
    apps_dir: Path = Path("apps")
    env: Mapping[str, str] = field(default_factory=dict)
    python: str = sys.executable
    port: int | None = None
    nodeid: str = ""
    keep_dir: Path | None = None  # keep callgrind's files here (default: a temporary folder, removed)

    @property
    def endpoint(self) -> Endpoint:
        """The endpoint every counted request goes to, as the verification checked it."""
        return self.workload.spec

    @property
    def owners(self) -> Owners:
        """Who owns each function of the cell: the server's packages, the app's folder, its frameworks."""
        return Owners.of(self.variant.requires, app_modules(self.apps_dir), self.app.requires)


def counting_environment(plan: CostPlan) -> dict[str, object]:
    """What decides the count besides the code: interpreter, packages, the ISA level the program sees under
    valgrind (not the host's: :mod:`.isa`), C library, valgrind."""
    modules = tuple(dict.fromkeys(plan.variant.requires + plan.app.requires))
    implementation = platform.python_implementation().lower() if plan.python == sys.executable else "python"
    version = platform.python_version() if plan.python == sys.executable else plan.python
    libc, libc_version = platform.libc_ver()
    return {
        "interpreter": f"{implementation}-{version}",
        "isa": counted_isa_level(),
        "libc": f"{libc}-{libc_version}" if libc else "libc-unknown",
        "valgrind": callgrind.valgrind_version().replace("valgrind-", ""),
        "packages": dict(installed_versions(plan.python, modules)),
    }


def measure_cost(plan: CostPlan) -> CostRecord:
    """Run the cell under callgrind and count ``plan.requests`` requests; the server is always stopped."""
    out_dir = Path(plan.keep_dir or tempfile.mkdtemp(prefix="serverbench-cost-")).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    port = plan.port if plan.port is not None else free_port()
    try:
        with fixed_paths(plan.python, plan.apps_dir) as staged:
            # the view is the environment's, seen through links: the same distributions
            dists = installed_versions(plan.python, tuple(dict.fromkeys(plan.variant.requires + plan.app.requires)))
            apps = [staged.as_seen(p) for p in app_paths(staged.start_dir)]  # found here, named as the server sees them
            compile_server(staged.python, dists, [*apps, *staged.folders], mark=staged.mark, enter=staged.enter)
            seen = replace(plan, python=staged.python, apps_dir=staged.apps_dir)
            counted = _count_window(seen, port, out_dir, staged)
    finally:  # a server that did not start leaves its files and vgdb's pipes too
        callgrind.remove_pipes(out_dir)
        if plan.keep_dir is None:
            shutil.rmtree(out_dir, ignore_errors=True)
    dumps, (system, system_absent), (kept, kept_absent) = counted
    owners = plan.owners
    return CostRecord(
        nodeid=plan.nodeid,
        variant=plan.variant.name,
        app=plan.app.name,
        workload=plan.workload.name,
        path=plan.workload.path,
        requests=plan.requests,
        instructions=sum(d.instructions for d in dumps),
        processes=tuple(ProcessCount(d.pid, d.command, d.instructions) for d in dumps),
        functions=c_functions(dumps, plan.requests, owners),
        environment=counting_environment(plan),
        wall_s=time.monotonic() - started,
        system=system,
        system_absent=system_absent,
        kept_per_request=kept,
        kept_absent=kept_absent,
        stage_note=staged.note,
    )


def _count_window(counted: CostPlan, port: int, out_dir: Path, staged: Staged) -> tuple[list[Dump], tuple, tuple]:
    """Start ``counted`` (its interpreter and app folder on the fixed-length stage, as ``staged``'s server sees it)
    under callgrind, count its window; each process's dump, the system calls per request (or why absent) and the memory
    kept per request (or why absent), from the same run (measure.counting.marks).  The server is always stopped."""
    environment = fixed_environment(counted, port)
    prefix = staged.enter + fixed_layout() + environment + callgrind.valgrind_command(out_dir)
    server = None
    marks = Marks(out_dir, backend_names(dict(v.split("=", 1) for v in environment[2:])), (port,))
    try:
        server = start_variant(
            replace(counted.variant, command=prefix + counted.variant.command),
            apps_dir=counted.apps_dir,
            app=counted.app,
            port=port,
            timeout=START_TIMEOUT_S,
            python=counted.python,
            cwd=staged.start_dir,
        )
        marks.server_log = server.process.log_path
        pids = run_window(counted, server.process.pid, port, Window(on=marks.on, end=marks.end, off=marks.off))
        staged.check(server.process.pid)
        dumps = callgrind.window_dumps(out_dir, pids)
        return dumps, marks.system(pids, counted.requests), marks.kept(counted.requests)
    except VerificationError as exc:  # it answered, wrongly: what it printed says why (read before it stops)
        if server is None:
            raise
        raise exc.with_log(server.process.log_tail()) from None
    finally:
        if server is not None:  # killed: the window is dumped, and gunicorn's graceful stop took 4.5 s under valgrind
            server.stop(at_once=True)


@dataclass(frozen=True)
class Window:
    """How a window is switched: ``on`` before it (every process, none paused), ``end`` right after its
    last request (the other workers still paused, the client still open), ``off`` once all run again."""

    on: Callable[[list[int]], None]
    end: Callable[[list[int], SequentialClient], None] = lambda pids, client: None
    off: Callable[[list[int]], None] = lambda pids: None


def run_window(plan: CostPlan, leader: int, port: int, window: Window, paced: bool = True) -> list[int]:
    """Verify, warm up, then send ``plan.requests`` requests between ``window.on`` and ``window.off``;
    returns the server's pids.  A pre-fork server's workers warm up one at a time and one of them
    serves the whole window, the others stopped: every run starts the window from the same state.
    ``paced``: each request waits until the server is quiet (a count); False sends them back to back."""
    verify(f"http://{LOOPBACK}:{port}", plan.workload.specs, f"{plan.variant.name}/{plan.app.name} (port {port})")
    declared = 0 if plan.variant.one_process else plan.variant.settings.get("workers")
    pids = settled(leader, port, server_pids, declared)
    workers = accepting_workers(pids, leader, port)
    if len(workers) < 2:
        workers = []
    for worker in workers or [None]:
        with paused([w for w in workers if w != worker]):
            _warm_up(plan, port, pids)
    quiet(pids)
    window.on(pids)
    with paused(workers[1:]):
        client = SequentialClient(port, plan.endpoint, pids if paced else None)
        try:
            client.send(plan.requests)
            quiet(pids)
            window.end(pids, client)
        finally:
            client.close()
    quiet(pids)
    window.off(pids)
    return pids


def _warm_up(plan: CostPlan, port: int, pids: list[int]) -> None:
    """Concurrent connections first (every pool thread serves), then sequential requests; then close."""
    client = SequentialClient(port, plan.endpoint)
    try:
        client.warm_up(plan.warmup)
        client.quiet_pids = pids
        client.send(max(plan.warmup // 4, 1))
    finally:
        client.close()


PAUSED_WORKER_TIMEOUT_S = 3600  # longer than any counted window


def fixed_environment(plan: CostPlan, port: int) -> tuple[str, ...]:
    """``env -i`` with only the variables the server needs (and the caller's ``SERVERBENCH_*`` knobs),
    padded to a constant size.

    The environment and the arguments sit at the top of the main thread's stack, so their length
    moves every stack address, and with them the paths that glibc's string routines take by
    alignment: 40 more bytes of environment moved aiohttp's count by 0.3%.  The pad makes the
    size the same whatever the checkout's path, the port's digits or the caller's variables.
    """
    python = plan.python
    argv = plan.variant.argv(
        python=python,
        bindir=os.path.dirname(python),
        host=LOOPBACK,
        port=port,
        target=plan.app.target,
        module=plan.app.module,
        callable=plan.app.callable,
        apps_dir=str(plan.apps_dir),
    )
    passed = {k: v for k, v in os.environ.items() if k.startswith("SERVERBENCH_") and k not in HARNESS_VARIABLES}
    env = {
        "PATH": f"{os.path.dirname(python)}:/usr/local/bin:/usr/bin:/bin",
        "HOME": os.environ.get("HOME", "/"),
        "LC_ALL": "C.UTF-8",
        "PYTHONPATH": str(plan.apps_dir),
        "PYTHONUNBUFFERED": "1",
        "PYTHONHASHSEED": "0",
        # The workers paused through the window send gunicorn's arbiter no heartbeat, and it kills a worker
        # silent for its timeout (30 s): /upstream's window (100 ms a request under valgrind) outlasts that.
        "GUNICORN_CMD_ARGS": f"--timeout {PAUSED_WORKER_TIMEOUT_S}",
        **passed,
        **plan.variant.env,
        **plan.env,
    }
    used = sum(len(a) + 1 for a in argv) + sum(len(k) + len(v) + 2 for k, v in env.items())
    if used + len(PAD_VARIABLE) + 2 > STACK_BLOCK:
        raise CountingError(
            f"the server's arguments and environment take {used} bytes, more than the "
            f"{STACK_BLOCK} the count is normalised to; shorten the paths (apps folder, interpreter)"
        )
    env[PAD_VARIABLE] = "x" * (STACK_BLOCK - used - len(PAD_VARIABLE) - 2)
    return (shutil.which("env") or "/usr/bin/env", "-i", *(f"{k}={v}" for k, v in env.items()))


@functools.cache
def fixed_layout() -> tuple[str, ...]:
    """``setarch <machine> -R``: the counted server's address space without randomisation, where the machine allows it.

    Valgrind places the program's mappings from the kernel's randomised base, so every object's address moved
    from run to run, and CPython's type attribute cache is indexed by bits 3-14 of the attribute name's address
    (ASLR moves bits 12 and up): which lookups missed it and walked the MRO changed with each start.  A container
    whose seccomp profile refuses the personality (Docker's default) counts with its layout randomised: empty.
    """
    setarch = shutil.which("setarch")
    if setarch is None:
        return ()
    command = (setarch, platform.machine(), "-R")
    probe = subprocess.run([*command, "true"], capture_output=True, timeout=30, check=False)
    return command if probe.returncode == 0 else ()


def c_functions(dumps: list[Dump], requests: int, owners: Owners) -> tuple[FunctionCost, ...]:
    """Every C function of the window (all processes summed), per request, with its package and role."""
    total: Counter = Counter()
    for dump in dumps:
        total.update(dump.functions)
    rows = []
    for (obj, fn), count in total.most_common():
        package, role = owners.of_object(obj)
        rows.append(FunctionCost("c", fn, os.path.basename(obj), package, role, count / requests))
    return tuple(rows)


def app_modules(apps_dir: Path) -> list[str]:
    """The top-level modules and packages of the app's folder: the reference apps' files, or a user's
    project (``notes``, ``notes_site``): their functions are the ``app`` role."""
    folder = Path(apps_dir)
    return (
        [Path(p).stem for p in glob.glob(str(folder / "*.py"))]
        + [Path(p).parent.name for p in glob.glob(str(folder / "*" / "__init__.py"))]
        + [Path(p).parent.name for p in glob.glob(str(folder / "src" / "*" / "__init__.py"))]
    )
