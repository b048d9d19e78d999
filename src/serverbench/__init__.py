"""serverbench: a pytest performance-regression suite for Python web servers."""

from importlib.metadata import PackageNotFoundError, version

try:  # one version source: pyproject.toml's [project] version, read from the installed package's metadata
    __version__ = version("serverbench")
except PackageNotFoundError:  # imported from a source tree that was never installed (pip install -e . fixes it)
    __version__ = "0+unknown"
