"""Bytecodes per Python function, counted inside a server for cost attribution (not for the count).

Loaded by the server's interpreter at start-up (this folder is put first on PYTHONPATH) when
SERVERBENCH_TRACE_DIR is set.  Counting is on while the file ``on`` exists in that folder: every
256 function calls the tracer looks for it.  When it goes away the counts are written to
``profile.<pid>.json`` there: ``[[filename, qualified name, first line, bytecodes], ...]`` and a
``modules`` map from file to module name.  Threads started by the threading module are traced too;
threads a C or Rust runtime starts are not.
"""

import json
import os
import sys
import threading

_DIR = os.environ.get("SERVERBENCH_TRACE_DIR")
_CHECK_EVERY = 256


class _Tracer:
    def __init__(self, folder):
        self.on_file = os.path.join(folder, "on")
        self.folder = folder
        self.calls = 0
        self.active = False
        self.counts = {}
        self.lock = threading.Lock()

    def __call__(self, frame, event, arg):
        self.calls += 1
        if self.calls % _CHECK_EVERY == 0:
            self._check()
        if not self.active:
            return None
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        code = frame.f_code
        counts = self.counts

        def local(frame, event, arg):
            if event == "opcode":
                counts[code] = counts.get(code, 0) + 1
            return local

        return local

    def _check(self):
        on = os.path.exists(self.on_file)
        if on and not self.active:
            self.counts.clear()
            self.active = True
        elif self.active and not on:
            self.active = False
            self._write()

    def _write(self):
        with self.lock:
            counts = dict(self.counts)
            self.counts.clear()
        modules = {}
        for name, module in list(sys.modules.items()):
            path = getattr(module, "__file__", None)
            if path:
                modules[path] = name
        rows = [[c.co_filename, getattr(c, "co_qualname", c.co_name), c.co_firstlineno, n] for c, n in counts.items()]
        path = os.path.join(self.folder, f"profile.{os.getpid()}.json")
        with open(path + ".tmp", "w") as f:
            json.dump({"functions": rows, "modules": modules}, f)
        os.replace(path + ".tmp", path)


if _DIR:
    _tracer = _Tracer(_DIR)
    sys.settrace(_tracer)
    threading.settrace(_tracer)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=lambda: setattr(_tracer, "calls", 0))
