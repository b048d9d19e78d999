"""Timed measurement: ``trial`` (warm up, then load while sampling the server), ``slowclients`` and ``faults`` (what
runs beside the load), ``ab`` and ``arms`` (the same-session A/B runner and its two arms), ``phases`` (where a
session's time goes).  May import every other floor of ``measure``."""
