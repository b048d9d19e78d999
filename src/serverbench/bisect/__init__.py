"""Which commit moved the counted cost, below its command: ``resolve`` (a door's options into the bisection's plan,
its cell resolved by the gate's own :mod:`serverbench.gate.served`), ``plan`` (the range, the cell, the threshold,
validated once), ``search`` (count the ends, then each commit the judge asks for; the bisection file's fields made
from what it found), ``confirm`` (a regression step confirmed by the gate's workflow, called with a plan) and
``workflow`` (all of it, from the options to the record).

Counting a commit is :mod:`serverbench.measure.counting.bisect`'s, what the counts say :mod:`serverbench.judge.bisect`'s,
the file's reading and writing :mod:`serverbench.records.bisects`'s, every line of text
:mod:`serverbench.report.bisect`'s.  May import: ``gate``, ``report``, ``measure``, ``judge``, ``records``,
``config``, ``catalog``, ``errors``; never ``cli`` or ``pytest_plugin``.
"""
