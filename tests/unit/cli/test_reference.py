"""`serverbench reference`: the generated blocks of a docs folder rewritten, or checked (no servers)."""

from pathlib import Path

from serverbench import cli
from serverbench.report import reference

DOCS = Path(__file__).resolve().parents[3] / "docs"


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


def test_serverbench_reference_names_and_rewrites_only_the_stale_pages(tmp_path, capsys):
    """Of a fresh page and a stale one, only the stale one is named and rewritten; a page with no block is left."""
    stale = "<!-- BEGIN GENERATED: options old -->\nstale\n<!-- END GENERATED: options -->\n"
    fresh = reference.regenerate(stale)
    (tmp_path / "a.md").write_text(fresh)
    (tmp_path / "b.md").write_text(stale)
    (tmp_path / "c.md").write_text("# notes\n")
    assert cli.main(["reference", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"{tmp_path / 'b.md'}: rewritten\n"
    assert (tmp_path / "b.md").read_text() == fresh and (tmp_path / "c.md").read_text() == "# notes\n"
