"""MongoDB over the real wire protocol, chosen in this order: ``--mongo-url`` (a real mongod,
e.g. a CI service container; noproc), a ``mongod`` on PATH started in a temp dir, else
SecantusDB's Python server from PyPI (``secantusd-py``, MongoDB's wire protocol over
WiredTiger) as the embedded default, found in serverbench's own environment first
(``SERVERBENCH_SERVICES_PYTHON``, :mod:`.environment`) whatever interpreter serves the app.  Seeded with the contract's documents and events.

SecantusDB serves about 1.4k find_one/s per connection here, so fast servers make it the
bottleneck: the backend's CPU is sampled during each trial and a saturated backend is
reported (``backend-bound``), never read as the server's speed.
"""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pymongo
from pymongo.errors import PyMongoError

from ..catalog.contract import BIG_DOC, EVENT_SIZES, MONGO_DB, SMALL_DOC, event
from ..errors import BackendUnreachable, MissingBinaryError
from ..processes.executors import LOOPBACK, ManagedProcess, free_port
from .environment import SERVICES_PYTHON, find_program, services_python, where_looked


@dataclass
class MongoService:
    """A reachable MongoDB: the URL apps use, what it is, and the process when serverbench started it."""

    url: str
    kind: str
    process: ManagedProcess | None = None
    _tmp: tempfile.TemporaryDirectory | None = field(default=None, repr=False)

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def client(self) -> pymongo.MongoClient:
        return pymongo.MongoClient(self.url, serverSelectionTimeoutMS=5000)

    def seed(self) -> None:
        """(Re)write the small and big documents and every event queue, with the index /events uses."""
        with self.client() as client:
            db = client[MONGO_DB]
            db.docs.delete_many({})
            db.docs.insert_many([dict(SMALL_DOC), dict(BIG_DOC)])
            db.events.delete_many({})
            rows = [{"queue": q, **event(q, i)} for q, n in EVENT_SIZES.items() for i in range(n)]
            db.events.insert_many(rows)
            db.events.create_index([("queue", 1), ("seq", 1)])

    def opcounters(self) -> dict[str, int] | None:
        """serverStatus().opcounters (None when the server does not report them)."""
        try:
            with self.client() as client:
                return dict(client.admin.command("serverStatus").get("opcounters") or {}) or None
        except PyMongoError:
            return None

    @property
    def cores(self) -> int:
        """Cores it can use: SecantusDB serves from one Python process (one core under the GIL)."""
        return 1 if self.kind == "secantusdb" else (os.cpu_count() or 1)

    def cpu_s(self) -> float | None:
        return None  # SecantusDB reports none: only a process serverbench started (its pid) is sampled

    def count(self) -> int | None:
        """Queries served so far (serverStatus().opcounters.query): one per /mongo or /events request."""
        counters = self.opcounters()
        return None if counters is None else int(counters.get("query", 0))

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


def missing_mongo_fix() -> str:
    """Why no MongoDB server was found and the real fix: SecantusDB in serverbench's own environment
    (it needs Python >= 3.10, which the interpreter under test, e.g. Debian's PyPy 3.9, may not be)."""
    setting = services_python()
    if setting is not None:
        install = f"`{setting} -m pip install secantusdb` (the environment {SERVICES_PYTHON} names)"
    elif sys.implementation.name == "cpython" and sys.version_info >= (3, 10):
        install = (
            f"`{sys.executable} -m pip install secantusdb`, or set {SERVICES_PYTHON} to the python of "
            "serverbench's own environment (`./run` sets it to .venv/bin/python)"
        )
    else:
        install = (
            f"set {SERVICES_PYTHON} to the python of serverbench's own environment, a CPython >= 3.10 "
            f"with secantusdb installed (`./run` builds .venv and sets it; {sys.executable} is Python "
            f"{sys.version_info[0]}.{sys.version_info[1]} and cannot install secantusdb)"
        )
    return (
        f"neither mongod nor SecantusDB's secantusd-py was found ({where_looked('secantusd-py')}). {install}; "
        "or put a mongod on PATH, or give a running one with --mongo-url mongodb://127.0.0.1:27017/"
    )


def _start(
    what: str,
    kind: str,
    argv: list[str],
    port: int,
    tmp: tempfile.TemporaryDirectory,
    timeout: float,
    log_dir: Path | None,
    host: str = LOOPBACK,
) -> MongoService:
    # TMPDIR: SecantusDB's in-memory store makes a folder of its own there (secantus_wt_*), which a server killed
    # while it starts cannot remove; inside ours it goes when ours does.
    env = {"TMPDIR": tmp.name}
    try:
        process = ManagedProcess(
            what, argv, port, ready_path=None, env=env, timeout=timeout, log_dir=log_dir, host=host
        ).start()
    except Exception:
        tmp.cleanup()
        raise
    service = MongoService(f"mongodb://{host}:{port}/?directConnection=true", kind, process, tmp)
    try:
        service.seed()
    except PyMongoError as exc:
        log = process.log_tail()
        service.stop()
        raise BackendUnreachable(f"{what} started but could not be seeded ({exc}); its log:\n{log}") from None
    return service


def start_mongo(
    port: int | None = None, timeout: float = 60.0, log_dir: Path | None = None, host: str = LOOPBACK
) -> MongoService:
    """Start mongod from PATH in a temp dir, else SecantusDB's server in memory (the proc fixture)."""
    port = port if port is not None else free_port()
    tmp = tempfile.TemporaryDirectory(prefix="serverbench-mongo-")
    mongod = find_program("mongod")
    if mongod:
        argv = [
            mongod,
            "--dbpath",
            tmp.name,
            "--port",
            str(port),
            "--bind_ip",
            host,
            "--nounixsocket",
            "--quiet",
            "--wiredTigerCacheSizeGB",
            "0.25",
        ]
        return _start("mongod", "mongod", argv, port, tmp, timeout, log_dir, host)
    secantus = find_program("secantusd-py")
    if secantus:
        argv = [
            secantus,
            "--host",
            host,
            "--port",
            str(port),
            "--storage-path",
            ":memory:",
            "--standalone",
            "--log-level",
            "WARNING",
        ]
        return _start("secantusdb", "secantusdb", argv, port, tmp, timeout, log_dir, host)
    tmp.cleanup()
    raise MissingBinaryError("a MongoDB server", fix=missing_mongo_fix())


def connect_mongo(url: str) -> MongoService:
    """Use a MongoDB someone else runs (the noproc fixture): seeded, or a clear error."""
    service = MongoService(url, "external")
    try:
        service.seed()
    except PyMongoError as exc:
        raise BackendUnreachable(
            f"--mongo-url {url} did not answer ({type(exc).__name__}: {str(exc)[:200]}). Start that server, "
            "fix the URL, or drop --mongo-url to let serverbench start one."
        ) from None
    return service
