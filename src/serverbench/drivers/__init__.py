"""Load generators behind one interface (:mod:`.base`): wrk (closed model), oha (open model), locust
(scenarios).  :func:`driver_for` chooses one for a load shape."""

from .base import Driver, driver_for

__all__ = ["Driver", "driver_for"]
