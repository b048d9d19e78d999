"""Reading and atomically writing the JSON files serverbench keeps (results, baselines)."""
from __future__ import annotations

import json
import os
import tempfile
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
