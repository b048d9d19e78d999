"""The reference tables in docs/ are the data rendered, not copies by hand that drift."""

from pathlib import Path

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
