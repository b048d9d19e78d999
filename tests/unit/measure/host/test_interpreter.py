"""measure.host.interpreter: which interpreter runs (implementation, version, build, the GIL), here and elsewhere."""

from __future__ import annotations

import platform
import sys
import sysconfig

import pytest

from serverbench.errors import ConfigError
from serverbench.measure.host.interpreter import describe, describe_of


def test_describe_names_this_interpreter_its_build_and_its_gil():
    """The probe run in this process gives this interpreter's identity and whether its build and run hold a GIL."""
    info = describe()
    assert (info["implementation"], info["version"]) == (
        platform.python_implementation().lower(),
        platform.python_version(),
    )
    assert info["free_threaded"] == (sysconfig.get_config_var("Py_GIL_DISABLED") == 1)
    expected = sys._is_gil_enabled() if hasattr(sys, "_is_gil_enabled") else True
    assert info["gil_enabled"] == (expected if info["implementation"] == "cpython" else None)


def test_describe_of_another_interpreter_runs_the_same_probe(tmp_path):
    """The probe run by an interpreter as a child gives what the interpreter gives in-process."""
    assert describe_of(sys.executable) == describe()
    link = tmp_path / "python"
    link.symlink_to(sys.executable)
    there = describe_of(str(link))
    assert (there["implementation"], there["version"], there["build"]) == (
        describe()["implementation"],
        describe()["version"],
        describe()["build"],
    )


def test_a_path_that_is_not_an_interpreter_is_refused_with_the_fix(tmp_path):
    """A file that is not a program, or a program that is not Python, is a ConfigError naming what to give."""
    not_python = tmp_path / "fake"
    not_python.write_text("#!/bin/sh\necho hello\n")
    not_python.chmod(0o755)
    for path in (tmp_path / "missing", not_python):
        with pytest.raises(ConfigError, match="is not a Python interpreter.*interpreter version such as 3.13"):
            describe_of(str(path))
