"""processes.stopping: SIGTERM stops a command as Ctrl-C does, through every finally, with the status a shell reads
(128 + the signal), and the previous handler comes back after the block."""

import signal

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
