"""Measurement: what starts processes and reads what they did, in four floors of sub-packages.

``trials`` (a timed trial, the A/B runner and its arms, slow clients, backend faults, the phase clock) stands on
``counting`` (a cell counted under valgrind: callgrind, the count's client, system calls, memory, the Python
tracer, one commit of a bisection), which stands on ``serving`` (a variant's or a user's app's server started,
made ready and verified), which stands on ``host`` (the machine and a process tree, sampled) and ``trees`` (commits,
worktrees, lock environments, installed packages).  Each imports only the floors below it
(``[tool.importlinter]`` in pyproject.toml; docs/architecture.md#floors).

Nothing here judges: the records go to :mod:`serverbench.judge`.
"""
