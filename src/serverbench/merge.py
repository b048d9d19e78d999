"""Moved to :mod:`serverbench.cli.merge` (``serverbench merge``); this name keeps ``python -m serverbench.merge`` working."""

import sys

from .cli import merge

if __name__ == "__main__":
    sys.exit(merge.main())
sys.modules[__name__] = merge  # an import of the old name is the command module itself (its names, monkeypatching)
