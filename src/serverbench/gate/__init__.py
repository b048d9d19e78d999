"""Moved to :mod:`serverbench.cli.gate` (``serverbench gate``); this name keeps ``python -m serverbench.gate``
and ``from serverbench.gate import ...`` working.

A package rather than a one-file shim so that no file sits at the old path ``serverbench/gate.py``: a
branch that edits that file then merges into ``cli/gate.py`` by git's rename detection.  Its names are
copies: patch ``serverbench.cli.gate`` to change what the command does.
"""

from ..cli import gate as _gate

globals().update({name: value for name, value in vars(_gate).items() if not name.startswith("__")})
