"""A remote process on a tether: run on a host over SSH, it starts a command and ends it when the SSH session ends.

``python -m serverbench.hosts.tether -- COMMAND ...`` is what the controller runs on a host (hosts.ssh): it puts
itself in a session of its own, prints its pid (the process group the controller stops by pid), runs COMMAND in that
group, and prints COMMAND's exit status and CPU time (wait4) as it ends.  Its standard input is the SSH channel: when it
reads end-of-file (the controller stopped the session, was interrupted, or the link was lost and ssh gave up), it stops
the whole group, SIGTERM and then SIGKILL, so no process is left on the host.  It is no agent: it serves one command,
and says nothing but these two lines.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

MARK = "serverbench-tether"
GRACE_S = 5.0


def _stop_group(pgid: int) -> None:
    """SIGTERM to the group, SIGKILL to what is left after GRACE_S."""
    for sig, wait in ((signal.SIGTERM, GRACE_S), (signal.SIGKILL, 0.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            time.sleep(0.05)
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                return


def _watch_stdin(pgid: int) -> None:
    """Stop the group when the controller's side of the session closes."""
    try:
        while os.read(0, 4096):
            pass
    except OSError:
        pass
    try:  # said where it can be: a killed controller's session took stderr's reader too (EPIPE)
        os.write(2, f"{MARK} lost: the controller's session ended; stopping process group {pgid}\n".encode())
    except OSError:
        pass
    _stop_group(pgid)
    os._exit(143)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        print("usage: python -m serverbench.hosts.tether -- COMMAND ...", file=sys.stderr)
        return 2
    try:
        os.setsid()
    except OSError:  # already a session leader (sshd made the session): its group is ours
        pass
    pgid = os.getpgid(0)
    sys.stderr.write(f"{MARK} pid={os.getpid()} pgid={pgid}\n")
    sys.stderr.flush()
    # The controller stops the group by its pid: the command ends, and the tether lives on to say how it ended (a
    # handler, not SIG_IGN, which the command would inherit).  SIGKILL, the controller's last resort, ends both.
    signal.signal(signal.SIGTERM, lambda *_: None)
    try:
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
    except OSError as exc:
        sys.stderr.write(f"{MARK} cannot start {argv[0]}: {exc}\n")
        return 127
    threading.Thread(target=_watch_stdin, args=(pgid,), daemon=True).start()
    _, status, usage = os.wait4(child.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    sys.stdout.flush()
    sys.stderr.write(f"{MARK} exit={json.dumps({'returncode': code, 'cpu_s': usage.ru_utime + usage.ru_stime})}\n")
    sys.stderr.flush()
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
