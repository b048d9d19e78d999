"""Which commit moved the counted cost: the bisection's plan (``plan``: the range, the cell, the threshold,
validated once) and its loop (``search``: count the ends, then each commit the judge asks for; the bisection file's
fields made from what it found).

Counting a commit is :mod:`serverbench.measure.counting.bisect`'s, what the counts say :mod:`serverbench.judge.bisect`'s,
the file's reading and writing :mod:`serverbench.records.bisects`'s.  May import: ``measure``, ``judge``, ``records``, ``config``,
``catalog``, ``errors``; never ``cli`` or ``pytest_plugin``.
"""
