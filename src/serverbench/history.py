"""Moved to :mod:`serverbench.cli.history` (``serverbench history``); this name keeps ``python -m serverbench.history`` working."""

import sys

from .cli import history

if __name__ == "__main__":
    sys.exit(history.main())
sys.modules[__name__] = history  # an import of the old name is the command module itself (its names, monkeypatching)
