"""The reference tables in docs/ are the data rendered, not copies by hand that drift."""

import re
from pathlib import Path

import pytest

from serverbench.config.options import OPTIONS, OPTIONS_BY_NAME, parse_option, resolve
from serverbench.errors import ConfigError
from serverbench.report import reference

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs"


def test_every_generated_block_matches_the_data():
    """Each generated block in docs/*.md is exactly what the data renders today."""
    stale = []
    for path in sorted(DOCS.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        if reference.regenerate(text) != text:
            stale.append(path.name)
    assert not stale, (
        f"docs/{', docs/'.join(stale)}: a generated table differs from the data; "
        f"regenerate with `{reference.COMMAND}` from the repository's root"
    )


def test_docs_hold_the_variants_workloads_and_options_blocks():
    """docs/ carries every generated block once, the variants block in docs/variants.md."""
    found = {
        name: path.name
        for path in DOCS.glob("*.md")
        for name, _ in reference.blocks_in(path.read_text(encoding="utf-8"))
    }
    assert found.get("variants") == "variants.md"
    assert set(found) == set(reference.BLOCKS)


def _options_rows(page: Path) -> list[tuple[int, str, str]]:
    """(line number, flag, default cell) of every row of the page's generated options table."""
    rows = []
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        cells = [c.strip() for c in line.split(" | ")]
        if line.startswith("| `--") and len(cells) >= 4:
            rows.append((number, cells[0].lstrip("| ").strip("`"), cells[2]))
    return rows


def test_each_documented_default_is_what_the_parser_resolves():
    """Each default docs/options.md states, typed as the ini value it says, resolves to the same setting as giving
    nothing: read where the program reads it (config.options.resolve after pytest's parser), not from the renderer."""
    page = DOCS / "options.md"
    rows = _options_rows(page)
    assert len(rows) == len(OPTIONS), f"docs/options.md has {len(rows)} option rows, the parser {len(OPTIONS)}"
    unset = resolve({}, {}, ROOT)
    wrong = []
    for number, flag, cell in rows:
        name = flag.removeprefix("--").replace("-", "_")
        written = cell.split(" (", 1)[0].strip("`")
        if written == "(none)":
            ok = OPTIONS_BY_NAME[name].default is None
        else:
            try:
                ok = resolve({}, {name: "" if written == "(empty)" else written}, ROOT) == unset
            except ConfigError as exc:
                ok, written = False, f"{written} ({exc})"
        if not ok:
            wrong.append(f"docs/options.md:{number}: {flag} says `{written}`")
        for context, value in re.findall(r"\((\w+): `([^`]*)`\)", cell):  # the gate reads default_in("gate")
            if parse_option(name, value, context) != OPTIONS_BY_NAME[name].default_in(context):
                wrong.append(f"docs/options.md:{number}: {flag} says `{value}` for {context}")
    assert not wrong, "defaults the parser does not resolve to: " + "; ".join(wrong)


def test_the_default_check_fails_on_a_list_default_written_as_its_first_choice():
    """`keepalive` for --perf-slow-clients (the old renderer's row) does not resolve to its default, none."""
    with pytest.raises(ConfigError, match="perf_slow_clients"):
        resolve({}, {"perf_slow_clients": "keepalive"}, ROOT)
    assert resolve({}, {"perf_slow_clients": "none"}, ROOT) == resolve({}, {}, ROOT)
