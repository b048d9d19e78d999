"""Processes on this machine: ``executors`` start, watch and stop them (their own session, a readiness check,
the process group killed at the end), ``readiness`` says what a starting server's answers mean, ``ports``
hands out free loopback ports, ``runqueue`` samples a process's threads' scheduler statistics, ``together`` runs
calls at the same time in threads that end when the command is stopped, ``stopping`` makes SIGTERM stop a command
as Ctrl-C does, through every ``finally``.

The servers (``measure``), the backends and the load generators all start here, so this package sits below
all three.  May import: ``records`` (a run queue is a record's field), ``errors``; nothing above.
"""
