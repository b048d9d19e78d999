"""Which installed packages run in a server, their versions, and who owns a module or an object file.

A cost baseline is keyed by what decides an instruction count: the interpreter, the versions of
the packages that run in the server (the variant's and the app's requirements and everything they
require, optional extras included when installed), the C library and the instruction-set level
valgrind's virtual CPU reports (glibc picks its string routines by it).  Not the CPU model.

Attribution names a package and a role for each profiled function: ``server``, ``framework``,
``app``, ``driver`` (database clients), ``standard library``, ``interpreter`` (libpython) or
``system`` (libc and the dynamic loader).
"""

from __future__ import annotations

import importlib.metadata as metadata
import json
import platform
import re
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

_DEV_EXTRA = re.compile(
    r"^((tests?|testing|dev|docs?|lint|typing|mypy|benchmarks?|all)([-_].*)?|.*[-_]platform)$", re.I
)
DRIVER_MODULES = frozenset({"redis", "pymongo", "bson", "motor", "psycopg", "psycopg2", "asyncpg", "urllib3"})
SERVER, FRAMEWORK, APP, DRIVER, STDLIB, INTERPRETER, SYSTEM, OTHER = (
    "server",
    "framework",
    "app",
    "driver",
    "standard library",
    "interpreter",
    "system",
    "other",
)

# Run inside another interpreter (an A/B arm's): this module's closure, imported from this source tree.
_PROBE = (
    "import json, sys; sys.path.insert(0, {src!r}); from serverbench.measure.trees.packages import _closure; "
    "print(json.dumps(_closure(sys.argv[1:])))"
)


@lru_cache(maxsize=64)
def installed_versions(python: str, modules: tuple[str, ...]) -> Mapping[str, str]:
    """``{distribution: version}`` for the modules and everything they require, as ``python`` sees them."""
    if python == sys.executable:
        return _closure(modules)
    probe = _PROBE.format(src=str(Path(__file__).resolve().parents[3]))  # measure/trees/ -> src
    out = subprocess.run([python, "-c", probe, *modules], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError(f"{python} could not list its packages: {out.stderr.strip()[-300:]}")
    return json.loads(out.stdout)


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _closure(modules: Sequence[str]) -> dict[str, str]:
    """The distributions behind ``modules`` and what they require.  The top-level distributions'
    optional extras count when installed (uvicorn uses httptools and uvloop if present), except
    test, development, meta ("all-...") and other-platform extras (twisted's ``dev``,
    ``all-non-platform`` and ``windows-platform`` list hypothesis and pyflakes, which never run in a
    server); further down only unconditional requirements are followed."""
    dists = _module_owners()
    installed = _installed()
    todo = [(_norm(d), True) for m in modules for d in dists.get(m, [])]
    seen: dict[str, str] = {}
    while todo:
        name, top = todo.pop()
        if name in seen or name not in installed:
            continue
        dist = installed[name]
        seen[name] = dist.version
        for spec in dist.requires or ():
            try:
                requirement = Requirement(spec)
            except InvalidRequirement:
                continue
            if _applies(requirement, dist.metadata.get_all("Provides-Extra") or [] if top else []):
                todo.append((_norm(requirement.name), False))
    return dict(sorted(seen.items()))


def _applies(requirement: Requirement, extras: Sequence[str]) -> bool:
    if requirement.marker is None:
        return True
    runtime_extras = [e for e in extras if not _DEV_EXTRA.match(e)]
    return any(requirement.marker.evaluate({"extra": e}) for e in ["", *runtime_extras])


def isa_level() -> str:
    """The x86-64 micro-architecture level (v1..v4) of this CPU's flags, else the machine name."""
    machine = platform.machine()
    if machine not in ("x86_64", "AMD64"):
        return machine
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            flags = set(next(line for line in cpuinfo if line.startswith("flags")).split())
    except (OSError, StopIteration):
        return "x86-64"
    levels = [
        ("v2", {"sse4_2", "popcnt", "ssse3"}),
        ("v3", {"avx2", "bmi2", "fma", "movbe"}),
        ("v4", {"avx512f", "avx512bw", "avx512vl"}),
    ]
    level = "v1"
    for name, needed in levels:
        if not needed <= flags:
            break
        level = name
    return f"x86-64-{level}"


@dataclass(frozen=True)
class Owners:
    """Who owns what in one cell: the server's packages, the framework's, the app's modules, the drivers."""

    server: frozenset[str]
    framework: frozenset[str]
    driver: frozenset[str]
    app_modules: frozenset[str]
    stdlib: frozenset[str] = frozenset(getattr(sys, "stdlib_module_names", ()))  # Python >= 3.10

    @classmethod
    def of(cls, server_modules: Iterable[str], app_modules: Iterable[str], app_requires: Iterable[str]) -> Owners:
        drivers = [m for m in app_requires if m in DRIVER_MODULES]
        frameworks = [m for m in app_requires if m not in DRIVER_MODULES]
        server = set(installed_versions(sys.executable, tuple(server_modules))) | {"serverbench"}
        framework = set(installed_versions(sys.executable, tuple(frameworks))) - server
        driver = set(installed_versions(sys.executable, tuple(drivers))) - server - framework
        return cls(frozenset(server), frozenset(framework), frozenset(driver), frozenset(app_modules))

    def of_module(self, module: str) -> tuple[str, str]:
        """(package, role) of a Python module name such as ``werkzeug.routing.map``."""
        top = module.split(".", 1)[0]
        if top in self.app_modules:
            return top, APP
        if top in self.stdlib or top in ("<frozen>", "builtins"):
            return top, STDLIB
        return self._role(_distribution(top) or top)

    def of_object(self, path: str) -> tuple[str, str]:
        """(package, role) of a shared object that callgrind names, such as ``.../aiohttp/_http_writer...so``."""
        name = Path(path).name
        if name.startswith("libpython") or re.search(r"/bin/python[\d.]*$", path):
            return "cpython", INTERPRETER
        if "/lib-dynload/" in path:
            return name.split(".", 1)[0], STDLIB
        site = re.search(r"/(?:site|dist)-packages/([^/]+)", path)
        if site:
            top = site.group(1).removesuffix(".libs").split(".", 1)[0]  # pyuwsgi.libs/ holds pyuwsgi's own
            return self._role(_distribution(top) or top)
        if name.startswith(("libc.", "libc-", "ld-linux", "libm.", "libpthread", "vgpreload")) or path == "???":
            return name.split(".so", 1)[0] or "???", SYSTEM
        return name.split(".so", 1)[0], OTHER

    def _role(self, dist: str) -> tuple[str, str]:
        dist = _norm(dist)
        for names, role in ((self.server, SERVER), (self.framework, FRAMEWORK), (self.driver, DRIVER)):
            if dist in names:
                return dist, role
        return dist, OTHER


# Read once a process, as installed_versions' answers are: each read parses every installed distribution's metadata
# (0.2 s and 0.1 s here, 147 distributions), and a count asked four times (its bytecode, its environment, the three
# roles of its attribution): 1.3 s of the harness's CPU per count, 2.6 s in the gate's two at once (one GIL).
@lru_cache(maxsize=1)
def _module_owners() -> Mapping[str, list[str]]:
    return metadata.packages_distributions()


@lru_cache(maxsize=1)
def _installed() -> Mapping[str, metadata.Distribution]:
    """Each installed distribution by its normalised name."""
    return {_norm(d.metadata["Name"]): d for d in metadata.distributions()}


def _distribution(top_module: str) -> str | None:
    found = _module_owners().get(top_module)
    return _norm(found[0]) if found else None
