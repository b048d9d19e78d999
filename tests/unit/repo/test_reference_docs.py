"""The reference tables in docs/ are the data rendered, not copies by hand that drift."""

from pathlib import Path

import pytest

from serverbench import cli
from serverbench.catalog.apps import APPS
from serverbench.catalog.variants import VARIANTS, Variant
from serverbench.report import reference

DOCS = Path(__file__).resolve().parents[3] / "docs"


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


def test_serverbench_reference_rewrites_a_stale_copy_and_check_names_it(tmp_path, capsys):
    """`serverbench reference --check DIR` exits 1 naming the stale page and changes nothing; without --check it
    rewrites only the block, and the copy is then fresh."""
    page = tmp_path / "options.md"
    page.write_text("intro\n<!-- BEGIN GENERATED: options old -->\nstale\n<!-- END GENERATED: options -->\n")
    before = page.read_text()
    assert cli.main(["reference", "--check", str(tmp_path)]) == 1
    assert capsys.readouterr().out == f"{page}: stale\n" and page.read_text() == before
    assert cli.main(["reference", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"{page}: rewritten\n"
    assert page.read_text() == reference.regenerate(before) != before
    assert cli.main(["reference", "--check", str(tmp_path)]) == 0


def test_serverbench_reference_finds_the_committed_docs_fresh(monkeypatch, capsys):
    """`serverbench reference --check`, run from the repository's root as documented, finds docs/ fresh."""
    monkeypatch.chdir(DOCS.parent)
    assert cli.main(["reference", "--check"]) == 0, capsys.readouterr().out


def test_serverbench_reference_without_generated_blocks_names_the_folder_to_give(tmp_path, capsys):
    """A folder with no generated block (run from elsewhere) exits 2 saying where to run it; nothing is written."""
    (tmp_path / "notes.md").write_text("# notes\n")
    assert cli.main(["reference", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path}/*.md holds no generated block" in err and "name its docs folder" in err
    assert (tmp_path / "notes.md").read_text() == "# notes\n"
