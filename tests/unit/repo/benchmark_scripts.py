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


def stale_lines(rendered: dict[Path, str]) -> list[str]:
    """``PAGE:LINE`` (relative to the checkout when inside it) of each file whose text is not ``rendered``'s: the
    first line that differs."""
    out = []
    for path, text in rendered.items():
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        if text == old:
            continue
        pairs = zip(text.splitlines(), old.splitlines())
        line = next((n for n, (new, was) in enumerate(pairs, 1) if new != was), None)
        if line is None:
            line = min(len(text.splitlines()), len(old.splitlines())) + 1
        out.append(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{line}")
    return out


def stale_renders(renderer) -> list[str]:
    """``PAGE:LINE`` of the docs that ``renderer.render(write=False)`` would rewrite, at their first difference."""
    return stale_lines(renderer.render(write=False))
