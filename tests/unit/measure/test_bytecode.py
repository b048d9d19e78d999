"""Compiling a counted server's files before it starts under valgrind."""

import sys

from serverbench.measure.bytecode import app_paths, compile_server


def test_the_apps_modules_and_packages_are_compiled_and_nothing_else(tmp_path):
    """The app folder's modules and packages get their bytecode; another folder in it (a project's venv) does not."""
    (tmp_path / "site_app.py").write_text("X = 1\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "views.py").write_text("Y = 2\n")
    (tmp_path / "venv").mkdir()
    (tmp_path / "venv" / "other.py").write_text("Z = 3\n")
    assert app_paths(tmp_path) == [str(tmp_path / "site_app.py"), str(tmp_path / "pkg")]
    compile_server(sys.executable, (), tmp_path)
    assert [p.name for p in (tmp_path / "__pycache__").iterdir()] == [f"site_app.{sys.implementation.cache_tag}.pyc"]
    assert len(list((tmp_path / "pkg" / "__pycache__").iterdir())) == 2
    assert not (tmp_path / "venv" / "__pycache__").exists()


def test_a_file_that_does_not_compile_is_left_to_the_server(tmp_path):
    """A syntax error in the app is not the compile step's to report: the server reports it when it starts."""
    (tmp_path / "broken.py").write_text("def (:\n")
    compile_server(sys.executable, (), tmp_path)
    assert not (tmp_path / "__pycache__").exists()
