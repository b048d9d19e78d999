"""A session handed over to the server host (hosts.handover): when it is, the command it runs there, and its output
copied here without the tether's lines.  The handover itself runs under `hosts simulate --apart`
(tests/integration/hosts/test_simulate.py)."""

from __future__ import annotations

import io
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from serverbench.hosts.handover import (
    _copy_output,
    apart,
    counted,
    if_apart,
    needed,
    project_root,
    without_hosts_flag,
)
from serverbench.hosts.inventory import parse
from serverbench.hosts.tether import MARK

INVENTORY = parse(
    {
        "hosts": [
            {"name": "app", "role": "server", "address": "198.18.0.10", "env": "/e"},
            {"name": "load1", "role": "load", "address": "198.18.0.11", "env": "/e"},
        ]
    },
    "hosts.toml",
)


def test_apart_when_the_server_hosts_address_is_not_ours():
    """Handed over when the server host's address is none of this machine's; run here when it is one."""
    assert apart(INVENTORY, {"127.0.0.1", "10.0.0.2"})
    assert not apart(INVENTORY, {"127.0.0.1", "198.18.0.10"})


def test_no_inventory_runs_here():
    """Without an inventory nothing is handed over (None: the session runs here)."""
    assert if_apart(None, lambda server, there: ["true"]) is None
    assert if_apart("", lambda server, there: ["true"]) is None


def test_the_hosts_flag_is_left_out_in_both_spellings():
    """--perf-hosts FILE and --perf-hosts=FILE are dropped (the session there gets its own); the rest is kept."""
    args = ["-m", "perf", "--perf-hosts", "h.toml", "--perf-variants", "aiohttp", "--perf-hosts=x.toml", "-k", "c64"]
    assert without_hosts_flag(args) == ["-m", "perf", "--perf-variants", "aiohttp", "-k", "c64"]


def test_the_project_root_is_the_git_checkout_or_the_folder(tmp_path):
    """Inside a git checkout its top folder; outside one the folder itself."""
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    (tmp_path / "repo" / "sub").mkdir()
    assert project_root(tmp_path / "repo" / "sub") == (tmp_path / "repo").resolve()
    (tmp_path / "plain").mkdir()
    assert project_root(tmp_path / "plain") == tmp_path / "plain"


@dataclass
class _Tethered:
    """What _copy_output reads of a tethered process: its two output files and whether its ssh still runs."""

    out: Path
    err: Path
    local: subprocess.Popen

    def running(self) -> bool:
        return self.local.poll() is None


def test_output_is_copied_as_it_comes_without_the_tethers_lines(tmp_path):
    """A process writing its output and errors in pieces: all of it copied, in order, the tether's marks left out."""
    writer = (
        "import sys, time\n"
        f"out, err = open({str(tmp_path / 'o')!r}, 'w'), open({str(tmp_path / 'e')!r}, 'w')\n"
        f"err.write('{MARK} pid=1 pgid=1\\n'); err.flush()\n"
        "for i in range(3):\n"
        "    out.write(f'line {i}\\n'); out.flush(); err.write(f'warn {i}'); err.flush(); time.sleep(0.15)\n"
        "    err.write('\\n'); err.flush()\n"
        f"err.write('{MARK} exit={{}}\\nlast words'); err.close(); out.close()\n"
    )
    process = subprocess.Popen([sys.executable, "-c", writer])
    out, err = io.BytesIO(), io.BytesIO()
    started = time.monotonic()
    _copy_output(_Tethered(tmp_path / "o", tmp_path / "e", process), out, err)
    process.wait()
    assert out.getvalue() == b"line 0\nline 1\nline 2\n"
    assert err.getvalue() == b"warn 0\nwarn 1\nwarn 2\nlast words\n"
    assert time.monotonic() - started < 30


def test_only_a_selection_that_may_count_or_a_users_own_app_is_handed_over():
    """-m cost (alone or among others) or a perf_app session is handed over to the server host; a perf session of
    the reference apps (-m perf, no -m, "not cost") runs apart."""
    assert counted("cost") and counted("perf or cost") and counted("(cost)")
    assert not counted("perf") and not counted(None) and not counted("") and not counted("not cost")
    assert not counted("costly")
    assert needed("perf", user_app=True) and needed("cost", user_app=False)
    assert not needed("perf", user_app=False) and not needed(None, user_app=False)
