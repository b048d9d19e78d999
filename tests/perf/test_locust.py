"""Locust scenarios: visitors of the book site, headless, one process or a master with workers."""

import pytest


@pytest.mark.perf(max_error_rate=0.01)
def test_bookshop_visitors(perf_locust, perf_locust_workers):
    """Visitors who search, open a book, fetch its cover and the static files: fail ratio and baseline held."""
    result = perf_locust()
    assert result.requests > 0, f"{result.key}: locust completed no request"
