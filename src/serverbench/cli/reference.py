"""Rewrite the generated reference tables (variants, apps, workloads, backends, options) in a docs folder.

    serverbench reference            # docs/ of serverbench's checkout, from the repository's root
    serverbench reference --check    # change nothing; exit 1 naming each stale file

The tables are rendered from the data (:mod:`serverbench.report.reference`) between the
``<!-- BEGIN GENERATED: ... -->`` markers of each Markdown file; the text around them is kept.
Exit status: 0 written (or fresh), 1 stale with --check, 2 no folder or no generated block in it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..report.reference import blocks_in, regenerate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="serverbench reference", description=__doc__.splitlines()[0])
    parser.add_argument(
        "folder",
        type=Path,
        nargs="?",
        default=Path("docs"),
        help="the docs folder whose generated blocks are rewritten (default: docs)",
    )
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when a copy is stale")
    args = parser.parse_args(argv)
    pages = {path: path.read_text(encoding="utf-8") for path in sorted(args.folder.glob("*.md"))}
    if not any(blocks_in(text) for text in pages.values()):
        print(
            f"error: {args.folder}/*.md holds no generated block (<!-- BEGIN GENERATED: NAME ... -->); "
            "run from the root of serverbench's checkout, or name its docs folder",
            file=sys.stderr,
        )
        return 2
    stale = [path for path, text in pages.items() if regenerate(text) != text]
    for path in stale:
        if not args.check:
            path.write_text(regenerate(pages[path]), encoding="utf-8")
        print(f"{path}: {'stale' if args.check else 'rewritten'}")
    return 1 if args.check and stale else 0
