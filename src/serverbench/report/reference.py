"""The reference tables, rendered as Markdown from the data: variants, apps, workloads, backends, options.

docs/ holds committed copies between markers; a unit test fails when a copy differs from what the
data renders.  Nothing here depends on the machine (no "ready" or "skip" column): the same data
renders the same text everywhere.  Rewrite the copies from the repository's root with

    serverbench reference

(:mod:`serverbench.cli.reference`; ``pytest --perf-list --markdown`` prints the variants block alone.)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Callable

from ..backends.base import BACKENDS, Backend
from ..catalog.apps import APPS, DEFAULT_APPS, INTERFACES, App
from ..catalog.variants import VARIANTS, Variant
from ..catalog.workloads import WORKLOADS, Workload
from ..config.options import OPTIONS, Option
from . import bisect

COMMAND = "serverbench reference"
BLOCK_RE = re.compile(
    r"(<!-- BEGIN GENERATED: (?P<name>[a-z-]+) [^\n]*-->\n)(?P<body>.*?)(<!-- END GENERATED: (?P=name) -->)", re.DOTALL
)


def table(header: Sequence[str], rows: Iterable[Sequence[str]], align: str = "") -> str:
    """A GitHub-flavoured Markdown table; ``align`` holds one of 'l' or 'r' per column (default left)."""

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |"

    rule = ["---:" if a == "r" else "---" for a in align.ljust(len(header), "l")]
    return "\n".join([line(header), "|" + "|".join(rule) + "|", *(line(r) for r in rows)]) + "\n"


def variants_table(variants: Sequence[Variant]) -> str:
    """Every variant, the rows kept for servers that cannot run here with the reason."""
    rows = []
    for v in variants:
        notes = f"**cannot run here**: {v.unsupported}" if v.unsupported else v.notes
        limit = v.python_limit()
        runs_on = ", ".join(v.interpreters) + (f" (CPython before {'.'.join(map(str, limit[0]))})" if limit else "")
        rows.append((f"`{v.name}`", v.server, v.worker, v.interface, runs_on, notes))
    return table(("variant", "server", "worker model", "loads", "interpreters", "notes"), rows)


def apps_table(apps: Mapping[str, App]) -> str:
    rows = []
    for a in apps.values():
        reference = DEFAULT_APPS.get(a.interface) == a.name
        notes = " ".join(n for n in (a.notes, "(reference app of its interface)" if reference else "") if n)
        rows.append((f"`{a.name}`", a.interface, f"`{a.target}`", notes))
    return table(("app", "interface", "module:callable", "notes"), rows)


def matrix_table(variants: Sequence[Variant], apps: Mapping[str, App]) -> str:
    """The variant x app matrix, per interface: every variant loading it serves every app offering it."""
    rows, total = [], 0
    for interface in INTERFACES:
        vs = [v.name for v in variants if v.interface == interface and not v.unsupported]
        names = [a.name for a in apps.values() if a.interface == interface]
        total += len(vs) * len(names)
        rows.append(
            (
                interface,
                str(len(vs)),
                ", ".join(f"`{n}`" for n in names),
                str(len(vs) * len(names)),
                ", ".join(f"`{n}`" for n in vs),
            )
        )
    rows.append(("all", str(sum(int(r[1]) for r in rows)), str(len(apps)), str(total), ""))
    return table(("interface", "variants", "apps", "cells", "variants that load it"), rows, "lrlrl")


def catalog(variants: Sequence[Variant] = VARIANTS, apps: Mapping[str, App] = APPS) -> str:
    """The variants block of docs/variants.md, as ``pytest --perf-list --markdown`` prints it."""
    unsupported = sum(1 for v in variants if v.unsupported)
    return (
        f"### Variants\n\n{len(variants)} variants, {unsupported} of them kept as rows for servers that "
        f"cannot run here.\n\n{variants_table(variants)}\n"
        f"### Apps\n\n{apps_table(apps)}\n"
        "### The matrix\n\nCells that can run (variants kept for servers that cannot run here are not "
        f"counted):\n\n{matrix_table(variants, apps)}"
    )


def workloads_table(workloads: Mapping[str, Workload] = WORKLOADS) -> str:
    rows = []
    for w in workloads.values():
        requests = f"{len(w.mix)} weighted URLs" if w.mix else f"`{w.path}`"
        rows.append((f"`{w.name}`", requests, ", ".join(w.backends) or "-", w.description))
    return table(("workload", "requests", "backends", "what it does"), rows)


def backends_table(backends: Mapping[str, Backend] = BACKENDS) -> str:
    """Every backend of the registry: what the apps read, the option naming a running one, what is started."""
    rows = [
        (
            f"`{b.name}`",
            f"`{b.env_var}`",
            f"`{b.url_flag}` (`{b.url_example}`)",
            b.description,
            f"`backends/{b.name}.py`",
        )
        for b in backends.values()
    ]
    return table(("backend", "the apps read", "a running one", "started otherwise", "module"), rows)


def _unset_word(option: Option) -> str:
    """The word this list option's own parser reads as ``None`` in its list (keepalive for connection reuse, none
    for slow clients): the default is written as a user would type it, and it parses back to the default."""
    for word in ("none", "keepalive"):
        try:
            if option.parse(word) == (None,):
                return word
        except ValueError:
            continue
    raise ValueError(
        f"{option.flag}: its default holds None, and its parser reads neither 'none' nor 'keepalive' as it"
    )


def _default(value: object, option: Option | None = None) -> str:
    """A default as it would be written on the command line or in ini (``option``: the list option it belongs to,
    whose parser names what ``None`` in its list is)."""
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, tuple):
        if any(v is None for v in value):
            if option is None:
                raise ValueError(f"a list default holding None needs its option to be written: {value!r}")
            unset = _unset_word(option)
            return ",".join(unset if v is None else str(v) for v in value)
        return ",".join(str(v) for v in value) or "(empty)"
    return str(value)


def options_table(options: Sequence[Option] = OPTIONS) -> str:
    """Every option; where a command's proven default differs (the gate's), it is named beside the default."""
    rows = []
    for o in options:
        default = f"`{_default(o.default, o)}`" + "".join(
            f" ({context}: `{_default(value, o)}`)" for context, value in o.context_defaults.items()
        )
        rows.append((f"`{o.flag}`", f"`{o.name}`", default, o.help))
    return table(("flag", "ini key", "default", "meaning"), rows)


BLOCKS: Mapping[str, Callable[[], str]] = {
    "variants": catalog,
    "workloads": workloads_table,
    "backends": backends_table,
    "options": options_table,
    "bisect-example": bisect.example_block,
    "bisect-benchmark": bisect.benchmark_block,
}


def begin_marker(name: str) -> str:
    return f"<!-- BEGIN GENERATED: {name} (by `{COMMAND}`; edit the data, not this copy) -->"


def end_marker(name: str) -> str:
    return f"<!-- END GENERATED: {name} -->"


def blocks_in(text: str) -> list[tuple[str, str]]:
    """(name, committed body) of every generated block in a Markdown text."""
    return [(m["name"], m["body"]) for m in BLOCK_RE.finditer(text)]


def regenerate(text: str, blocks: Mapping[str, Callable[[], str]] = BLOCKS) -> str:
    """The text with every generated block rendered again from the data."""

    def render(m: re.Match) -> str:
        if m["name"] not in blocks:
            raise ValueError(f"unknown generated block {m['name']!r}; known blocks: {', '.join(blocks)}")
        return f"{begin_marker(m['name'])}\n{blocks[m['name']]()}{end_marker(m['name'])}"

    return BLOCK_RE.sub(render, text)
