"""A counted server's Python files compiled to bytecode natively, before the server starts under valgrind.

The server imports a module from its ``.pyc`` when there is one and writes it when there is not (the counted
server runs under ``env -i``, without the caller's PYTHONDONTWRITEBYTECODE).  In a fresh environment (a new
venv, a CI clone, the gate's base arm in a git worktree) the first counted server compiled every module it
imported under valgrind: gunicorn-sync-w2/flask took 28 s to start instead of 8.  Compiling the server's and
the app's packages natively first takes a second or two once, and a few tenths of a second to find nothing
to do.  The count does not change: the window's requests run after the warm-up, whichever way the bytecode
came.  Best effort: a file that cannot be compiled (a read-only site-packages) is compiled by the server, as
before.

Where the environment forbids writing bytecode beside the source (PYTHONDONTWRITEBYTECODE), a server started for
the perf suite or the gate keeps it in serverbench's own cache instead (:func:`bytecode_cache`).
"""

from __future__ import annotations

import glob
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

# Run inside the server's interpreter (its magic number): each distribution's .py files but its tests (gevent's
# 178 of 263 files: 4.2 s natively for gunicorn-sync-w2/flask's closure with them, 2.6 s without), then the app's
# files and folders.  Timestamp pycs, as an import writes them: hash-checked ones (SOURCE_DATE_EPOCH set) are read by
# hashing their source on each import.
_SCRIPT = """
import compileall, importlib.metadata as m, importlib.util, os, py_compile, sys
mode = py_compile.PycInvalidationMode.TIMESTAMP
TESTS = {"test", "tests", "testing"}
MARK = sys.argv[1].encode()
split = sys.argv.index("--")

def compile(path):
    # a pyc that does not hold MARK was compiled through another path: its co_filename, unmarshalled at each import
    # before the import renames it, has another length
    force = False
    if MARK:
        try:
            with open(importlib.util.cache_from_source(path), "rb") as f:
                force = MARK not in f.read()
        except OSError:
            pass
    compileall.compile_file(path, quiet=2, invalidation_mode=mode, force=force)

# the environment's modules imported as the interpreter started (a .pth file's import line: setuptools'
# _distutils_hack): every server reads them, whatever it requires
if sys.prefix != sys.base_prefix:
    for path in sorted({getattr(mod, "__file__", None) or "" for mod in list(sys.modules.values())}):
        if path.endswith(".py") and path.startswith(os.path.join(sys.prefix, "")):
            compile(path)
for name in sys.argv[2:split]:
    try:
        dist = m.distribution(name)
    except m.PackageNotFoundError:
        continue
    for f in dist.files or ():
        if f.suffix == ".py" and not TESTS & set(f.parts[:-1]):
            compile(str(f.locate()))
for path in sys.argv[split + 1:]:
    if path.endswith(".py"):
        compile(path)
        continue
    for top, dirs, files in os.walk(path, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                compile(os.path.join(top, name))
"""
TIMEOUT_S = 300.0


def app_paths(apps_dir: Path) -> list[str]:
    """The app folder's top-level modules and packages (a ``src/`` layout's too), not its other folders (a
    project's own venv)."""
    folder = Path(apps_dir)
    return (
        sorted(glob.glob(str(folder / "*.py")))
        + sorted(str(Path(p).parent) for p in glob.glob(str(folder / "*" / "__init__.py")))
        + sorted(str(Path(p).parent) for p in glob.glob(str(folder / "src" / "*" / "__init__.py")))
    )


def compile_server(
    python: str, dists: Iterable[str], paths: Sequence[str], mark: str = "", enter: Sequence[str] = ()
) -> None:
    """Compile the distributions ``dists`` (:func:`.trees.packages.installed_versions`' names), the app's files and
    folders and every module under the folders in ``paths`` (:func:`app_paths`, an editable install's ``src``), for
    ``python`` started after ``enter`` (the command line that puts it where the server sees its paths).  With ``mark``,
    a bytecode file that does not hold it (the path the server sees its stage at) is compiled again: its source was
    compiled through another path, and the file names inside a ``.pyc`` are read into the server's heap at each
    import."""
    subprocess.run(
        # -E: where the server looks (beside the sources), not a caller's PYTHONPYCACHEPREFIX (the server runs under env -i)
        [*enter, python, "-E", "-c", _SCRIPT, mark, *dists, "--", *paths],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=TIMEOUT_S,
        check=False,  # best effort: what is not compiled here, the server compiles
    )


def bytecode_cache(environ: Mapping[str, str]) -> dict[str, str]:
    """Where a server keeps the bytecode of its imports when the environment says not to write it beside the source
    (PYTHONDONTWRITEBYTECODE, set by some shells and containers, and on this project's machine): in serverbench's own
    cache (PYTHONPYCACHEPREFIX), so a server does not compile every module it imports from source each time it starts
    (the gate starts fresh servers for every block; measured: aiohttp ready in 0.6-1.3 s instead of 2.0-2.2 s).  An
    environment that already names a prefix, or that writes bytecode, is left as it is."""
    if not environ.get("PYTHONDONTWRITEBYTECODE") or environ.get("PYTHONPYCACHEPREFIX"):
        return {}
    cache = Path(environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "serverbench" / "pycache"
    return {"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": str(cache)}
