"""tests/unit is laid out as src/serverbench is (docs/architecture.md#tests): a module's unit tests in one file named
after it (what only a real server shows is in tests/integration, grouped by what it starts)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SRC, UNIT = ROOT / "src" / "serverbench", ROOT / "tests" / "unit"
# Folders of tests/unit that mirror no package of src/: the repository's files (docs, workflows, scripts, lint),
# the reference apps (apps/), and properties fuzzed across many readers and options at once.
NOT_MIRRORS = {"repo", "apps", "fuzz"}


def _module(path: Path) -> str:
    return path.relative_to(SRC).as_posix()


def _defines_something(path: Path) -> bool:
    return any(
        isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for n in ast.parse(path.read_text()).body
    )


def src_modules() -> list[str]:
    """Every module of the package, as a path under src/serverbench; a package's __init__ only when it defines a
    function or class (one that only names the package's floor or re-exports has nothing of its own to test)."""
    return sorted(
        _module(p)
        for p in SRC.rglob("*.py")
        if "__pycache__" not in p.parts and (p.name != "__init__.py" or _defines_something(p))
    )


def mirror(module: str) -> Path:
    """The unit test file of ``module``: judge/decision.py -> tests/unit/judge/test_decision.py; a package's
    __init__ (cli/__init__.py) -> its folder's test_<package>.py (tests/unit/cli/test_cli.py)."""
    path = Path(module)
    if path.name == "__init__.py":
        return UNIT / path.parent / f"test_{path.parent.name or 'serverbench'}.py"
    return UNIT / path.parent / f"test_{path.stem}.py"


def test_every_module_has_its_unit_test_file():
    """Each src module (and each package __init__ that defines something) has tests/unit/<its path>/test_<name>.py."""
    missing = [m for m in src_modules() if not mirror(m).is_file()]
    assert not missing, (
        f"modules with no unit test file: {missing}.  Put a module's unit tests in one file named after it, "
        f"{mirror(missing[0]).relative_to(ROOT)} for the first: its pure parts tested without servers; what only a "
        "real server shows goes in tests/integration"
    )


def test_every_unit_test_file_is_named_after_a_module():
    """A test file under a mirrored folder of tests/unit is named after a module beside it in src (no tests
    named after the campaign that produced them, as test_mutation_* were)."""
    modules = {mirror(m) for m in src_modules()}
    orphans = [
        p.relative_to(ROOT).as_posix()
        for p in sorted(UNIT.rglob("test_*.py"))
        if p.relative_to(UNIT).parts[0] not in NOT_MIRRORS and p not in modules
    ]
    assert not orphans, (
        f"unit test files named after no module of src/serverbench: {orphans}; move each test into the file "
        "named after the module it tests"
    )


def test_the_mirror_of_a_module_and_of_a_package():
    """judge/decision.py maps to tests/unit/judge/test_decision.py, cli/__init__.py to tests/unit/cli/test_cli.py."""
    assert mirror("judge/decision.py") == UNIT / "judge" / "test_decision.py"
    assert mirror("cli/__init__.py") == UNIT / "cli" / "test_cli.py"
    assert mirror("errors.py") == UNIT / "test_errors.py"
