"""A doc's measured block, ``<!-- BEGIN MEASURED: NAME ... -->`` to ``<!-- END MEASURED: NAME -->``, rewritten from
its results file by the benchmark script that owns it (fault_census.py, mutants_extra.py)."""

from __future__ import annotations

import re
from pathlib import Path


def rewrite(doc: Path, name: str, body: str, write: bool = True) -> dict[Path, str]:
    """``doc`` with the block ``name`` holding ``body``; written when ``write`` and changed."""
    block = re.compile(
        rf"(<!-- BEGIN MEASURED: {re.escape(name)} [^\n]*-->\n).*?(<!-- END MEASURED: {re.escape(name)} -->)", re.DOTALL
    )
    text = doc.read_text()
    if not block.search(text):
        raise SystemExit(f"{doc}: no <!-- BEGIN MEASURED: {name} --> block; add one where the figures go")
    new = block.sub(lambda m: m[1] + body + m[2], text)
    if write and new != text:
        doc.write_text(new)
    return {doc: new}
