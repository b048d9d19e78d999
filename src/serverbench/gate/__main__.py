"""``python -m serverbench.gate``: the ``serverbench gate`` command."""

import sys

from ..cli.gate import main

sys.exit(main())
