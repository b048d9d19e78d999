"""measure/counting/tracer/sitecustomize.py: the bytecode tracer a profiled server loads.  Its switch (the ``on`` file, looked
at every 256 calls), its counts per code object and the profile file it writes, driven here by hand with real frames
(the test process's own trace function is left alone)."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

import serverbench.measure.counting.pytrace as pytrace

TRACER_FILE = Path(pytrace.__file__).parent / "tracer" / "sitecustomize.py"


@pytest.fixture
def tracer_module(monkeypatch):
    """The tracer module loaded under its own name with SERVERBENCH_TRACE_DIR unset: it installs nothing here."""
    monkeypatch.delenv("SERVERBENCH_TRACE_DIR", raising=False)
    spec = importlib.util.spec_from_file_location("serverbench_test_sitecustomize", TRACER_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert not hasattr(module, "_tracer")
    return module


def _finished_frame():
    """The frame of a call that has returned: setting its trace flags changes nothing that runs."""
    return sys._getframe()


def test_the_on_file_is_looked_at_every_256_calls_and_tracing_starts_only_then(tracer_module, tmp_path):
    """With ``on`` present, calls 1..255 are not traced; the 256th looks, switches on and returns a local tracer."""
    tracer = tracer_module._Tracer(str(tmp_path))
    (tmp_path / "on").write_text("")
    frame = _finished_frame()
    assert all(tracer(frame, "call", None) is None for _ in range(255))
    assert not tracer.active
    local = tracer(frame, "call", None)
    assert tracer.active and callable(local) and frame.f_trace_opcodes is True and frame.f_trace_lines is False


def test_counts_are_opcodes_per_code_object_written_with_the_modules_when_the_on_file_goes(tracer_module, tmp_path):
    """Opcode events count per code; removing ``on`` writes [file, qualname, first line, count] rows and the modules."""
    tracer = tracer_module._Tracer(str(tmp_path))
    (tmp_path / "on").write_text("")
    tracer._check()
    frame = _finished_frame()
    local = tracer(frame, "call", None)
    for event in ["opcode"] * 7 + ["line", "return"]:
        assert local(frame, event, None) is local
    (tmp_path / "on").unlink()
    tracer._check()
    assert not tracer.active and tracer.counts == {}
    written = json.loads((tmp_path / f"profile.{os.getpid()}.json").read_text())
    code = _finished_frame.__code__
    assert written["functions"] == [
        [code.co_filename, getattr(code, "co_qualname", code.co_name), code.co_firstlineno, 7]
    ]
    assert written["modules"][json.__file__] == "json"
    assert not (tmp_path / f"profile.{os.getpid()}.json.tmp").exists()


def test_switching_on_again_starts_from_zero(tracer_module, tmp_path):
    """Counts left from before a switch-on are dropped: only the calls while ``on`` exists are counted."""
    tracer = tracer_module._Tracer(str(tmp_path))
    frame = _finished_frame()
    tracer.counts[frame.f_code] = 99
    (tmp_path / "on").write_text("")
    tracer._check()
    assert tracer.active and tracer.counts == {}
