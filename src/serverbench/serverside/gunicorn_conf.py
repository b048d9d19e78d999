"""gunicorn settings every gunicorn variant loads (``-c python:serverbench.serverside.gunicorn_conf``).

A config module instead of flags because gunicorn ignores settings it does not know here,
while an unknown flag is fatal: gunicorn >= 25 opens a control socket in ~/.gunicorn unless
told not to, and the gunicorn that installs on PyPy 3.9 (23.x) has no such setting.
"""

import gc
import os

control_socket_disable = True


def when_ready(server):
    """SERVERBENCH_GC_FREEZE=1: move every object the master holds (the app too, with --preload) to the
    permanent generation before the workers fork, so no worker's collector writes to those objects'
    headers and the pages stay shared (copy-on-write undone only by reference counts; docs/memory.md)."""
    if os.environ.get("SERVERBENCH_GC_FREEZE") == "1":
        gc.freeze()
