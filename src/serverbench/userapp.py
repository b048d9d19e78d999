"""What a project that serves its own app imports: ``endpoint`` builds one of its endpoints
(for the ``pytest_perf_endpoints`` conftest hook; docs/your-app.md)."""

from .catalog.contract import Endpoint, Request
from .catalog.userapp import endpoint

__all__ = ["Endpoint", "Request", "endpoint"]
