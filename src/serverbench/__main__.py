"""``python -m serverbench``: the ``serverbench`` command (:mod:`serverbench.cli`)."""

import sys

from .cli import main

sys.exit(main())
