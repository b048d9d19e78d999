"""A perf session without pytest: its resolved settings, the cells it runs, the hosts, drivers and baselines it
uses, and its results with their verdicts (``perf.PerfSession``).  ``pytest_plugin`` wires it to pytest's hooks and
fixtures; nothing here imports pytest.

Imports: ``report``, ``judge``, ``measure``, ``config``, ``drivers``, ``hosts``, ``records``, ``catalog``,
``errors``; never ``cli``, ``pytest_plugin``, ``gate`` or ``bisect``.
"""
