"""One shell kept open on a host for reading its processes (hosts.procstat.LOOP): one round trip per sample.

A server's sampler on the server host (measure.host.remotetree) and the backends' CPU on the host they run on
(hosts.connected) ask through one: a command sent per sample would start the login shell there each time, with its
start-up files (a ``pyenv init`` in ``.bashrc`` cost more CPU than the sample, at every window's edges).
"""

from __future__ import annotations

import os
import select
import subprocess
import threading
import time

from ..processes.executors import guarded
from . import procstat, ssh
from .inventory import Host
from .ssh import Connections

SAMPLE_TIMEOUT_S = 15.0


class StatChannel:
    """One shell kept open on ``host`` (hosts.procstat.LOOP) for a server's life: :meth:`ask` is one round trip, one
    sample.  Its ssh is a process of ours here, ended by its pid (:meth:`close`); closing its input ends the shell."""

    def __init__(self, connections: Connections, host: Host):
        self.host = host
        self._process = subprocess.Popen(
            guarded(connections.argv(host, procstat.LOOP)),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._buffer = b""
        self._lock = threading.Lock()

    def ask(self, timeout: float = SAMPLE_TIMEOUT_S) -> procstat.Sampled | None:
        """One sample of the host's processes; None when the host did not answer within ``timeout``."""
        with self._lock:
            try:
                self._process.stdin.write(b"\n")
                self._process.stdin.flush()
            except (OSError, ValueError):
                return None
            deadline = time.monotonic() + timeout
            fd = self._process.stdout.fileno()
            while procstat.END not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([fd], [], [], left)[0]:
                    return None
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return None
                self._buffer += chunk
            answer, _, self._buffer = self._buffer.partition(procstat.END)
        return procstat.parse(answer.decode(errors="replace"))

    def close(self) -> None:
        with self._lock:
            if self._process.stdin is not None and not self._process.stdin.closed:
                self._process.stdin.close()  # the shell reads end-of-file and exits
            ssh.end(self._process)
            self._process.stdout.close()
