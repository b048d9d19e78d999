"""measure.serving.bytecode: a counted server's files compiled before it starts, and where a server keeps its bytecode."""

import py_compile
import sys
from pathlib import Path

from serverbench.measure.serving.bytecode import app_paths, bytecode_cache, compile_server


def test_the_apps_modules_and_packages_are_compiled_and_nothing_else(tmp_path):
    """The app folder's modules and packages get their bytecode; another folder in it (a project's venv) does not."""
    (tmp_path / "site_app.py").write_text("X = 1\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "views.py").write_text("Y = 2\n")
    (tmp_path / "venv").mkdir()
    (tmp_path / "venv" / "other.py").write_text("Z = 3\n")
    assert app_paths(tmp_path) == [str(tmp_path / "site_app.py"), str(tmp_path / "pkg")]
    compile_server(sys.executable, (), app_paths(tmp_path))
    assert [p.name for p in (tmp_path / "__pycache__").iterdir()] == [f"site_app.{sys.implementation.cache_tag}.pyc"]
    assert len(list((tmp_path / "pkg" / "__pycache__").iterdir())) == 2
    assert not (tmp_path / "venv" / "__pycache__").exists()


def test_a_file_that_does_not_compile_is_left_to_the_server(tmp_path):
    """A syntax error in the app is not the compile step's to report: the server reports it when it starts."""
    (tmp_path / "broken.py").write_text("def (:\n")
    compile_server(sys.executable, (), app_paths(tmp_path))
    assert not (tmp_path / "__pycache__").exists()


def test_a_server_caches_its_bytecode_out_of_the_tree_when_the_environment_forbids_writing_it():
    """PYTHONDONTWRITEBYTECODE set: the server writes and reads bytecode in serverbench's cache, not beside the source."""
    env = bytecode_cache({"PYTHONDONTWRITEBYTECODE": "1", "XDG_CACHE_HOME": "/var/cache/u"})
    assert env == {"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": "/var/cache/u/serverbench/pycache"}
    home = bytecode_cache({"PYTHONDONTWRITEBYTECODE": "1"})["PYTHONPYCACHEPREFIX"]
    assert home == str(Path.home() / ".cache" / "serverbench" / "pycache")


def test_an_environment_that_writes_bytecode_or_names_a_prefix_is_left_alone():
    """No setting, an empty one, or a prefix the user chose: nothing is changed."""
    assert bytecode_cache({}) == {}
    assert bytecode_cache({"PYTHONDONTWRITEBYTECODE": ""}) == {}
    assert bytecode_cache({"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": "/elsewhere"}) == {}


def test_bytecode_compiled_through_another_path_is_compiled_again(tmp_path):
    """With a mark, a .pyc whose file name inside lacks it (compiled through another path) is rewritten, and one
    that holds it is left alone."""
    (tmp_path / "site_app.py").write_text("X = 1\n")
    compile_server(sys.executable, (), app_paths(tmp_path))
    (pyc,) = (tmp_path / "__pycache__").iterdir()
    assert b"serverbench-paths-" not in pyc.read_bytes()
    link = tmp_path.parent / f"serverbench-paths-{tmp_path.name}"
    link.symlink_to(tmp_path)
    try:
        compile_server(sys.executable, (), app_paths(link), mark="serverbench-paths-")
        assert b"serverbench-paths-" in pyc.read_bytes()
        written = pyc.stat().st_mtime_ns
        compile_server(sys.executable, (), app_paths(link), mark="serverbench-paths-")
        assert pyc.stat().st_mtime_ns == written
    finally:
        link.unlink()


def test_the_modules_under_named_folders_are_compiled(tmp_path):
    """A folder passed beside the app (an editable install's src) has every module under it compiled."""
    (tmp_path / "src" / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "sub" / "mod.py").write_text("Y = 2\n")
    (tmp_path / "apps").mkdir()
    compile_server(sys.executable, (), [*app_paths(tmp_path / "apps"), str(tmp_path / "src")])
    assert len(list((tmp_path / "src" / "pkg" / "sub" / "__pycache__").iterdir())) == 1


def test_the_environments_modules_imported_at_start_are_compiled_whatever_the_server_requires(tmp_path):
    """A module a .pth file imports as the interpreter starts (setuptools' _distutils_hack), its bytecode compiled
    through another path, is compiled again to hold the mark; another module of the environment that nothing names
    is not compiled."""
    venv = tmp_path / "venv"
    site = venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    site.mkdir(parents=True)
    (venv / "bin").mkdir()
    (venv / "bin" / "python").symlink_to(sys.executable)
    (venv / "pyvenv.cfg").write_text(f"home = {Path(sys.executable).parent}\ninclude-system-site-packages = false\n")
    (site / "starthook.py").write_text("X = 1\n")
    (site / "unnamed.py").write_text("Y = 2\n")
    (site / "hook.pth").write_text("import starthook\n")
    pyc = site / "__pycache__" / f"starthook.{sys.implementation.cache_tag}.pyc"  # beside it: the server runs with -E
    py_compile.compile(str(site / "starthook.py"), str(pyc), dfile="/elsewhere/starthook.py")
    compile_server(str(venv / "bin" / "python"), (), [], mark=str(site))
    assert f"{site}/starthook.py".encode() in pyc.read_bytes()
    assert [p.name for p in (site / "__pycache__").iterdir()] == [pyc.name]
