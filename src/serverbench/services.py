"""Moved to :mod:`serverbench.cli.services` (``serverbench services``); this name keeps ``python -m serverbench.services`` working."""

import sys

from .cli import services

if __name__ == "__main__":
    sys.exit(services.main())
sys.modules[__name__] = services  # an import of the old name is the command module itself (its names, monkeypatching)
