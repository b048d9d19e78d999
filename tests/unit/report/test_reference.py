"""The reference tables rendered as Markdown from the data, and the generated blocks of a page rewritten."""

import dataclasses

import pytest

from serverbench.catalog.apps import APPS, App
from serverbench.catalog.variants import VARIANTS, Variant
from serverbench.config.options import OPTIONS
from serverbench.report import reference


def test_every_variant_and_app_has_a_row():
    """The variants block lists every variant, the unsupported ones with their reason, and every app."""
    text = reference.catalog()
    for v in VARIANTS:
        assert f"| `{v.name}` | {v.server} | {v.worker} | {v.interface} |" in text
    for v in (v for v in VARIANTS if v.unsupported):
        assert f"**cannot run here**: {v.unsupported}" in text.replace("\\|", "|")
    for a in APPS.values():
        assert f"| `{a.name}` | {a.interface} | `{a.target}` |" in text


def test_rendering_does_not_depend_on_what_is_installed():
    """A variant whose package no interpreter has renders like any other: no ready or skip column."""
    absent = Variant(
        "nosuch-server",
        "nosuch",
        "sync",
        "wsgi",
        ("{python}", "-m", "nosuch"),
        requires=("nosuch_module_xyz",),
        install="pip install nosuch",
    )
    text = reference.variants_table([absent])
    assert "| `nosuch-server` | nosuch | sync | wsgi | cpython, pypy |  |" in text
    assert "ready" not in text and "skip" not in text


def test_a_pipe_in_a_cell_does_not_break_the_table():
    """A '|' inside a cell is escaped, so the row keeps its columns."""
    assert reference.table(("a", "b"), [("x|y", "z")]) == "| a | b |\n|---|---|\n| x\\|y | z |\n"


def test_regenerate_rewrites_only_the_block():
    """Text around a block is kept; the block and its begin marker are rendered again."""
    text = "intro\n<!-- BEGIN GENERATED: options old -->\nstale\n<!-- END GENERATED: options -->\noutro\n"
    fresh = reference.regenerate(text)
    assert fresh.startswith(f"intro\n{reference.begin_marker('options')}\n| flag | ini key |")
    assert fresh.endswith(f"{reference.end_marker('options')}\noutro\n")
    assert reference.regenerate(fresh) == fresh


def test_an_unknown_block_names_the_known_ones():
    """A marker naming no renderer is an error listing the blocks that exist."""
    with pytest.raises(ValueError, match="unknown generated block 'nope'; known blocks: variants, workloads"):
        reference.regenerate("<!-- BEGIN GENERATED: nope x -->\n<!-- END GENERATED: nope -->")


def test_the_reference_tables_are_a_command_not_a_module_to_run():
    """The docs' tables are rewritten by `serverbench reference`; report.reference only renders them."""
    from serverbench.report import reference

    assert not hasattr(reference, "main")
    assert reference.COMMAND == "serverbench reference"


def test_a_table_aligns_the_columns_asked_and_keeps_a_row_on_one_line():
    """'r' right-aligns its column (---:), the rest stay left; a newline in a cell becomes a space."""
    assert reference.table(("a", "n", "b"), [("x\ny", "1", "z")], "lr") == (
        "| a | n | b |\n|---|---:|---|\n| x y | 1 | z |\n"
    )


def variant(name: str, interface: str, unsupported: str = "") -> Variant:
    """A variant of ``interface`` (kept as a row that cannot run when ``unsupported``)."""
    return Variant(name, name, "sync", interface, ("{python}",), requires=(), install="", unsupported=unsupported)


def test_the_matrix_counts_the_cells_each_interface_can_run():
    """Cells are variants x apps per interface; a variant that cannot run here is not counted; 'all' sums them."""
    variants = [variant("w1", "wsgi"), variant("w2", "wsgi"), variant("w3", "wsgi", "gone"), variant("a1", "asgi")]
    apps = {n: App(n, i, n, "app", (), "") for n, i in (("flask", "wsgi"), ("x", "asgi"), ("y", "asgi"))}
    rows = {row.split(" | ")[0].strip("| "): row for row in reference.matrix_table(variants, apps).splitlines()[2:]}
    assert rows["wsgi"] == "| wsgi | 2 | `flask` | 2 | `w1`, `w2` |"
    assert rows["asgi"] == "| asgi | 1 | `x`, `y` | 2 | `a1` |"
    assert rows["tornado"] == "| tornado | 0 |  | 0 |  |"
    assert rows["all"] == "| all | 3 | 3 | 4 |  |"


def test_an_options_default_is_written_as_typed_with_each_commands_own():
    """None is (none), booleans on/off, a list joined by commas (empty as (empty)); a command's own default follows
    in brackets."""
    base = OPTIONS[0]
    cases = {
        None: "`(none)`",
        True: "`on`",
        False: "`off`",
        (1, 2): "`1,2`",
        (): "`(empty)`",
        2.5: "`2.5`",
    }
    for default, written in cases.items():
        row = reference.options_table([dataclasses.replace(base, default=default)]).splitlines()[2]
        assert row.split(" | ")[2] == written, default
    gate = dataclasses.replace(base, default=1, context_defaults={"gate": 3})
    assert reference.options_table([gate]).splitlines()[2].split(" | ")[2] == "`1` (gate: `3`)"


def test_none_in_a_list_default_is_the_word_its_own_parser_reads_as_none():
    """Connection reuse's None is `keepalive`, slow clients' None is `none` (not the first choice of another list),
    and a list option whose parser has no word for None cannot be rendered."""
    by_name = {o.name: o for o in OPTIONS}
    reuse = dataclasses.replace(by_name["perf_requests_per_connection"], default=(None, 10))
    slow = by_name["perf_slow_clients"]
    assert reference.options_table([reuse]).splitlines()[2].split(" | ")[2] == "`keepalive,10`"
    assert reference.options_table([slow]).splitlines()[2].split(" | ")[2] == "`none`"
    with pytest.raises(ValueError, match="--perf-variants: its default holds None"):
        reference.options_table([dataclasses.replace(OPTIONS[0], default=(None,))])


def test_blocks_in_finds_each_closed_block_by_name():
    """A block opened and closed under one name is found with its body; one closed under another name is not."""
    text = (
        "<!-- BEGIN GENERATED: a x -->\nbody a\n<!-- END GENERATED: a -->\n"
        "<!-- BEGIN GENERATED: b x -->\nbody b\n<!-- END GENERATED: c -->\n"
    )
    assert reference.blocks_in(text) == [("a", "body a\n")]


def test_regenerate_renders_each_block_from_its_renderer():
    """Each block gets its own renderer's text between fresh markers; text with no block is left as it is."""
    text = "<!-- BEGIN GENERATED: a old -->\nx\n<!-- END GENERATED: a -->\n<!-- BEGIN GENERATED: b -->\ny\n<!-- END GENERATED: b -->"
    fresh = reference.regenerate(text, {"a": lambda: "A\n", "b": lambda: "B\n"})
    assert fresh == (
        f"{reference.begin_marker('a')}\nA\n{reference.end_marker('a')}\n"
        f"{reference.begin_marker('b')}\nB\n{reference.end_marker('b')}"
    )
    assert reference.regenerate("no blocks\n", {}) == "no blocks\n"
