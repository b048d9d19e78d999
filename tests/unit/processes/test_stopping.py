"""processes.stopping: SIGTERM stops a command as Ctrl-C does, through every finally, with the status a shell reads
(128 + the signal), and the previous handler comes back after the block."""

import os
import signal
import time

import pytest

from serverbench.processes import stopping


def test_sigterm_exits_with_128_plus_the_signal():
    """The SIGTERM handler exits 128 + the signal's number (143), through every finally."""
    with pytest.raises(SystemExit) as stop:
        stopping._exit_on_sigterm(15, None)
    assert stop.value.code == 143
    with pytest.raises(SystemExit) as stop:
        stopping._exit_on_sigterm(2, None)
    assert stop.value.code == 130


def test_the_previous_sigterm_handler_comes_back_after_the_block():
    """Inside the block SIGTERM raises SystemExit; after it, the handler that was there before is back."""
    before = signal.getsignal(signal.SIGTERM)
    with stopping.terminating_through_finally():
        assert signal.getsignal(signal.SIGTERM) is stopping._exit_on_sigterm
    assert signal.getsignal(signal.SIGTERM) is before


def test_sigterm_interrupts_the_way_ctrl_c_does_until_put_back():
    """Installed (the perf plugin does, for a pytest session), a real SIGTERM to this process raises
    KeyboardInterrupt, which pytest ends its session on through every teardown; the returned call puts the previous
    handler back."""
    before = signal.getsignal(signal.SIGTERM)
    restore = stopping.sigterm_interrupts()
    try:
        with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler runs at the next bytecode, at the latest here
    finally:
        restore()
    assert signal.getsignal(signal.SIGTERM) is before
