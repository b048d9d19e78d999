"""Load generators.  A driver runs one load shape against a URL and returns a LoadReport."""
from .wrk import WrkDriver, parse_report

__all__ = ["WrkDriver", "parse_report"]
