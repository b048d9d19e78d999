"""The A/B gate's workflow, below its command: ``options`` (what a door asks, as given: ``serverbench gate``'s command
line, bisect's ``--gate-args``), ``served`` (what the arms serve: a reference cell, or a user's own project, ``user``),
``resolve`` (the options checked once into a ``GatePlan``, before anything starts), ``workflow`` (the plan run as one
pipeline for the reference apps and a project: backends, the base worktree, each arm's setup, a decision per
workload; a stored decision judged again), ``plan`` (what one decision runs, validated before anything starts) and
``loop`` (count, then measure blocks up to each look and judge, until the judge stops).

Measuring the arms is :mod:`serverbench.measure.trials.ab`'s, judging them :mod:`serverbench.judge.ab`'s, the decision
file :mod:`serverbench.records.decisions`'s, the command :mod:`serverbench.cli.gate`'s (it parses and wires) and every
line of text :mod:`serverbench.report.gate`'s.  May import: ``report``, ``measure`` (a user's app is resolved there,
below the perf suite and the gate alike), ``judge``, ``records``, ``config``, ``backends``, ``processes``,
``catalog``, ``errors``; never ``cli``, ``bisect`` (it calls the gate) or ``pytest_plugin``.
Inside (a layers contract): ``workflow`` > ``resolve``, ``loop`` > ``served``, ``options`` > ``user``, ``plan``.
"""
