"""Slow and idle clients: K connections held beside the load, and how long a server keeps one.

The clients are a process of their own (``python -m serverbench.measure.trials.slowclients``), started like
a load generator (own session, parent-death signal, the same cores) and told to stop with SIGTERM.
Each connection does what its kind says (catalog.shapes.SLOW_KINDS), then only reads, so the moment
the server closes it (EOF or reset) is seen exactly.  The process prints ``ready`` once every
connection is open (or failed), then, when stopped, one JSON line: the facts of a
:class:`~serverbench.records.schema.SlowClientReport`.

Why not Debian's slowhttptest: it has the byte-at-a-time headers (-H) but neither a connection that
sends nothing nor an idle kept-alive one, and it reports connection states per second, not when each
connection was dropped.  These few lines of asyncio do all four kinds with each drop timed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import signal
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from ...catalog.shapes import SLOW_KINDS, LoadShape
from ...errors import GeneratorError
from ...processes.executors import BackgroundProcess
from ...records.schema import SlowClientReport

CONNECT_TIMEOUT_S = 5.0
ANSWER_TIMEOUT_S = 5.0  # a keep-alive client waits this long for its one answer before it counts as ready
READY_TIMEOUT_S = CONNECT_TIMEOUT_S + ANSWER_TIMEOUT_S + 10.0
READY = "ready"


@dataclass
class Connection:
    """One slow client's life, in seconds since the clients started."""

    opened_at: float | None = None
    closed_at: float | None = None  # the server closed it (EOF or reset); None: still open
    answer: str = ""  # the status code the server sent first, if any ("408", "400", "200")


def request_head(host: str, path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: {host}\r\n".encode()


def slowloris_bytes(host: str, path: str) -> Iterator[bytes]:
    """Headers without end, one byte at a time: the request line, Host, then X-Slow-1: a, X-Slow-2: a, ..."""
    lines = itertools.chain([request_head(host, path)], (f"X-Slow-{n}: a\r\n".encode() for n in itertools.count(1)))
    for line in lines:
        for i in range(len(line)):
            yield line[i : i + 1]


async def _send(kind: str, writer: asyncio.StreamWriter, host: str, path: str, interval: float) -> None:
    """What a client of ``kind`` sends after connecting (idle: nothing)."""
    if kind == "partial":
        writer.write(request_head(host, path))
    elif kind == "keepalive":
        writer.write(request_head(host, path) + b"\r\n")
    elif kind == "slowloris":
        for byte in slowloris_bytes(host, path):
            writer.write(byte)
            await writer.drain()
            await asyncio.sleep(interval)
    await writer.drain()


async def _hold(
    conn: Connection, kind: str, host: str, port: int, path: str, interval: float, clock: float, ready: asyncio.Event
) -> None:
    """Open one connection, send as ``kind`` says, then read until the server closes it."""
    loop = asyncio.get_running_loop()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), CONNECT_TIMEOUT_S)
    except (OSError, asyncio.TimeoutError):
        ready.set()
        return
    conn.opened_at = loop.time() - clock
    if kind != "keepalive":
        ready.set()
    sender = asyncio.ensure_future(_send(kind, writer, host, path, interval))
    answer_wait = loop.call_later(ANSWER_TIMEOUT_S, ready.set)
    try:
        while chunk := await reader.read(65536):
            if not conn.answer:
                conn.answer = chunk[9:12].decode(errors="replace") if chunk.startswith(b"HTTP/") else "?"
                ready.set()
    except OSError:
        pass
    finally:
        answer_wait.cancel()
        ready.set()
        sender.cancel()
        sender.add_done_callback(lambda task: task.cancelled() or task.exception())  # a reset while sending is no news
        writer.close()
    conn.closed_at = loop.time() - clock


async def hold_all(
    kind: str,
    count: int,
    host: str,
    port: int,
    path: str,
    *,
    seconds: float,
    interval: float,
    until_dropped: bool,
    stop: asyncio.Event,
) -> tuple[list[Connection], float]:
    """Hold ``count`` connections until ``stop``, ``seconds``, or (``until_dropped``) the server closed them all.
    Prints ``ready`` once each is open and, for keep-alive, answered (or failed)."""
    loop = asyncio.get_running_loop()
    clock = loop.time()
    conns = [Connection() for _ in range(count)]
    readies = [asyncio.Event() for _ in conns]
    tasks = [
        asyncio.ensure_future(_hold(c, kind, host, port, path, interval, clock, r)) for c, r in zip(conns, readies)
    ]
    await asyncio.gather(*(r.wait() for r in readies))
    print(READY, sum(c.opened_at is not None for c in conns), flush=True)
    waits = [asyncio.ensure_future(stop.wait())]
    if until_dropped:
        waits.append(asyncio.ensure_future(asyncio.gather(*tasks, return_exceptions=True)))
    await asyncio.wait(waits, timeout=max(0.0, seconds - (loop.time() - clock)), return_when=asyncio.FIRST_COMPLETED)
    window = loop.time() - clock
    for task in tasks + waits:
        task.cancel()
    await asyncio.gather(*tasks, *waits, return_exceptions=True)
    return conns, window


def summary(kind: str, conns: Sequence[Connection], window_s: float) -> SlowClientReport:
    """The facts of a finished set of slow clients."""
    opened = [c for c in conns if c.opened_at is not None]
    dropped = [c for c in opened if c.closed_at is not None]
    answers: dict[str, int] = {}
    for c in dropped:
        if c.answer:
            answers[c.answer] = answers.get(c.answer, 0) + 1
    return SlowClientReport(
        kind, len(conns), len(opened), tuple(c.closed_at - c.opened_at for c in dropped), window_s, answers
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m serverbench.measure.trials.slowclients",
        description="Hold slow HTTP clients against a server until SIGTERM.",
    )
    parser.add_argument("url", help="http://host:port/path")
    parser.add_argument("--kind", choices=tuple(SLOW_KINDS), required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--seconds", type=float, required=True, help="stop by then whatever happens")
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between a slowloris client's bytes")
    parser.add_argument("--until-dropped", action="store_true", help="stop once the server closed every one")
    args = parser.parse_args(argv)
    url = urlsplit(args.url)

    async def run() -> tuple[list[Connection], float]:
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        return await hold_all(
            args.kind,
            args.count,
            url.hostname or "127.0.0.1",
            url.port or 80,
            url.path or "/",
            seconds=args.seconds,
            interval=args.interval,
            until_dropped=args.until_dropped,
            stop=stop,
        )

    conns, window = asyncio.run(run())
    print(json.dumps(summary(args.kind, conns, window).to_record()), flush=True)


class SlowClients:
    """The slow-client process of one measured window (or one hold-time probe)."""

    def __init__(
        self,
        url: str,
        kind: str,
        count: int,
        *,
        seconds: float,
        interval: float = 1.0,
        until_dropped: bool = False,
        cpus: Sequence[int] | None = None,
    ):
        self.argv = [
            sys.executable,
            "-m",
            "serverbench.measure.trials.slowclients",
            url,
            "--kind",
            kind,
            "--count",
            str(count),
            "--seconds",
            f"{seconds:g}",
            "--interval",
            f"{interval:g}",
        ]
        if until_dropped:
            self.argv.append("--until-dropped")
        self.cpus = cpus
        self.seconds = seconds
        self._dir = tempfile.TemporaryDirectory(prefix="serverbench-slow-")
        self._process: BackgroundProcess | None = None

    def start(self) -> SlowClients:
        """Start the clients and wait (bounded) until every connection is open or failed."""
        self._process = BackgroundProcess.start(self.argv, Path(self._dir.name) / "slowclients.log", cpus=self.cpus)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while not self._output().startswith(READY):
            if self._process.process.poll() is not None or time.monotonic() > deadline:
                output = self.stop_output(0.0)
                self._dir.cleanup()
                raise GeneratorError(
                    f"the slow clients ({' '.join(self.argv[3:])}) were not ready within "
                    f"{READY_TIMEOUT_S:g} s; their output: {output.strip()[-500:] or '(none)'}"
                )
            time.sleep(0.02)
        return self

    def stop(self, linger_s: float = 0.0) -> SlowClientReport:
        """Stop them (after up to ``linger_s`` for them to end on their own) and read their facts."""
        output = self.stop_output(linger_s)
        self._dir.cleanup()
        last = output.strip().splitlines()[-1] if output.strip() else ""
        try:
            return SlowClientReport.from_record(json.loads(last))
        except (ValueError, KeyError, TypeError):
            raise GeneratorError(
                f"the slow clients ended without their summary; their output: {output.strip()[-500:] or '(none)'}"
            ) from None

    def stop_output(self, linger_s: float) -> str:
        assert self._process is not None, "start() first"
        return self._process.reap(linger_s).output

    def _output(self) -> str:
        try:
            return (Path(self._dir.name) / "slowclients.log").read_text(errors="replace")
        except OSError:
            return ""


class Held:
    """What :func:`held` yields: the report, once the window is over (None: the shape has no slow clients)."""

    report: SlowClientReport | None = None


@contextlib.contextmanager
def held(url: str, shape: LoadShape, cpus: Sequence[int] | None = None) -> Iterator[Held]:
    """The shape's slow clients held against ``url`` for the body of the ``with`` (none if it asks none)."""
    out = Held()
    if not shape.slow_clients:
        yield out
        return
    clients = SlowClients(
        url, str(shape.slow_kind), shape.slow_clients, seconds=shape.duration + 60.0, cpus=cpus
    ).start()
    try:
        yield out
    finally:
        out.report = clients.stop()


def hold_time(url: str, kind: str = "idle", cap_s: float = 40.0) -> SlowClientReport:
    """One connection of ``kind`` against ``url``, kept until the server closes it or ``cap_s`` passes:
    its ``dropped_s`` is how long the server held it (empty: longer than the cap)."""
    return SlowClients(url, kind, 1, seconds=cap_s, until_dropped=True).start().stop(linger_s=cap_s + 5.0)


if __name__ == "__main__":
    main()
