"""Moved to :mod:`serverbench.cli.compare` (``serverbench compare``); this name keeps ``python -m serverbench.compare`` working."""

import sys

from .cli import compare

if __name__ == "__main__":
    sys.exit(compare.main())
sys.modules[__name__] = compare  # an import of the old name is the command module itself (its names, monkeypatching)
