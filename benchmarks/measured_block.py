"""A doc's rendered block: the lines between ``<!-- BEGIN MEASURED: NAME ... -->`` and ``<!-- END MEASURED: NAME -->``,
rewritten from a results file by the script that keeps it (fault_census.py, mutants_extra.py, mutation_score.py), so that no figure
in it is typed by hand."""

from __future__ import annotations

import re
from pathlib import Path


def rewrite(doc: Path, name: str, body: str, write: bool = True, text: str | None = None) -> dict[Path, str]:
    """``doc`` with its block ``name`` holding ``body``; written when ``write`` and changed.  ``text``: the doc's text
    to rewrite (another block of the same doc already rewritten), else the file's."""
    block = re.compile(
        rf"(<!-- BEGIN MEASURED: {re.escape(name)} [^\n]*-->\n)(?P<body>.*?)(<!-- END MEASURED: {re.escape(name)} -->)",
        re.DOTALL,
    )
    text = doc.read_text() if text is None else text
    if not block.search(text):
        raise SystemExit(f"{doc}: no <!-- BEGIN MEASURED: {name} --> block; add one where the figures go")
    new = block.sub(lambda m: m[1] + body + m[3], text)
    if write and new != doc.read_text():
        doc.write_text(new)
    return {doc: new}
