"""serverbench: a pytest performance-regression suite for Python web servers."""

__version__ = "0.1.0"
