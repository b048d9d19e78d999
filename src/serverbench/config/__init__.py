"""Configuration: ``options`` declares every serverbench option once (flag, ini key, default, help) and
resolves them once into a frozen ``PerfConfig``; ``project`` reads a project's pytest configuration without
pytest (for ``serverbench gate`` and ``serverbench bisect``).

May import: ``catalog``, ``backends`` (each backend's URL option derives from its registry entry),
``processes``, ``errors``; nothing that measures, judges or reports.
"""
