"""The A/B gate between its command and the layers it alternates: ``plan`` (what one decision runs: the cell,
the workload, the two arms, the schedule and the policy, validated before anything starts), ``loop`` (count, then
measure blocks up to each look and judge, until the judge stops) and ``user`` (a user's own project: its app,
endpoints and variant, resolved for the plans).

Measuring the arms is :mod:`serverbench.measure.trials.ab`'s, judging them :mod:`serverbench.judge.ab`'s, the decision
file :mod:`serverbench.records.decisions`'s, the command :mod:`serverbench.cli.gate`'s and its text :mod:`serverbench.report.gate`'s.  May
import: ``report``, ``measure`` (a user's app is resolved there, below the perf suite and the gate alike),
``judge``, ``records``, ``config``, ``backends``, ``processes``, ``catalog``, ``errors``; never ``cli`` or
``pytest_plugin``.
Inside, ``loop`` imports ``plan``; ``user`` imports neither.
"""
