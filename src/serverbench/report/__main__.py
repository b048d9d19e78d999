"""``python -m serverbench.report``: the ``serverbench report`` command (:mod:`serverbench.cli.report`)."""

import sys

from ..cli.report import main

sys.exit(main())
