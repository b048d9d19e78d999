"""The benchmark scripts as the repository's tests read them: a script's names, and the docs whose rendered blocks
its results file would change (figures typed by hand or left behind by a newer run)."""

from __future__ import annotations

import runpy
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[3]


def script(name: str) -> SimpleNamespace:
    """benchmarks/``name``'s module-level names, run as a script is (not imported as serverbench is)."""
    return SimpleNamespace(**runpy.run_path(str(ROOT / "benchmarks" / name)))


def stale_renders(renderer) -> list[str]:
    """The docs (relative to the checkout) that ``renderer.render(write=False)`` would rewrite."""
    return [str(p.relative_to(ROOT)) for p, text in renderer.render(write=False).items() if text != p.read_text()]
