"""Reading and atomically writing the JSON files serverbench keeps (results, baselines).

A write goes to a temporary file in the same folder, renamed over the file: a reader, or a
session interrupted mid-write, sees the old file or the new one, never a mix.  A file that is
read, merged and written back (a baseline) is held under :func:`locked` (its folder's lock) meanwhile, so two
sessions saving at once both keep their entries.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def write_atomic(path: Path, data: Any) -> None:
    """Write JSON to a temporary file in the same folder, then rename over ``path``: never half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=2, sort_keys=True)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock for ``path`` until the block ends: flock on its folder (no lock file left in
    a committed baseline folder), released by the kernel when the holder dies, so a killed session never
    leaves it held."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the only descriptor releases the lock


def read(path: Path) -> Any:
    """The JSON value in ``path``.  Text that is not JSON, nested deeper than Python recurses or holding a
    number too long to convert is a json.JSONDecodeError: each reader names the file and the fix."""
    with open(path) as f:
        text = f.read()
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text, 0) from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # an integer longer than sys.get_int_max_str_digits()
        raise json.JSONDecodeError(str(exc), text, 0) from None
