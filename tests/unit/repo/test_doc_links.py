"""Every relative link in README.md and docs/ points to a file (and heading) that exists, and every raw run
file they name on the `results` branch (`results:benchmarks/results/<file>`) is listed and, when the branch is
in this clone, there."""

from __future__ import annotations

import fnmatch
import re
import subprocess
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[3]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PARSER = MarkdownIt("commonmark").enable("table")
INDEX = ROOT / "benchmarks" / "results" / "INDEX.md"
RESULTS_REF = re.compile(r"results:(benchmarks/results/[\w.*/-]+)")


def _tokens(path: Path):
    """Every token of a Markdown file, inline children included (code spans and blocks hold no links)."""
    for token in PARSER.parse(path.read_text(encoding="utf-8")):
        yield token
        yield from token.children or ()


def links(path: Path) -> list[str]:
    """The targets of the file's links and images."""
    out = []
    for token in _tokens(path):
        if token.type == "link_open":
            out.append(token.attrs["href"])
        elif token.type == "image":
            out.append(token.attrs["src"])
    return out


def anchors(path: Path) -> frozenset[str]:
    """The heading anchors GitHub makes: lower case, punctuation dropped, spaces to '-', repeats numbered."""
    return _anchors(path.read_text(encoding="utf-8"))


@cache  # a page is linked with a heading many times: parsed once per text, not once per link
def _anchors(text: str) -> frozenset[str]:
    found: set[str] = set()
    count: dict[str, int] = {}
    tokens = PARSER.parse(text)
    for opening, inline in zip(tokens, tokens[1:]):
        if opening.type == "heading_open":
            text = "".join(c.content for c in inline.children if c.type in ("text", "code_inline"))
            slug = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
            found.add(slug if slug not in count else f"{slug}-{count[slug]}")
            count[slug] = count.get(slug, 0) + 1
    return frozenset(found)


def broken(page: Path) -> list[str]:
    """The relative links of one page that lead nowhere, each with the reason."""
    problems = []
    for target in links(page):
        parts = urlsplit(target)
        if parts.scheme or parts.netloc:
            continue  # absolute URLs are not checked here
        path = (page.parent / unquote(parts.path)).resolve() if parts.path else page
        if not path.exists():
            problems.append(f"{target}: no file {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
        elif parts.fragment and path.suffix == ".md" and parts.fragment not in anchors(path):
            problems.append(f"{target}: {path.name} has no heading #{parts.fragment}")
    return problems


def test_every_relative_link_resolves():
    """README.md and every docs/*.md link only to files and headings that exist in the tree."""
    problems = [f"{page.relative_to(ROOT)}: {p}" for page in PAGES for p in broken(page)]
    assert not problems, "broken links:\n  " + "\n  ".join(problems)


def test_the_checker_finds_a_broken_link(tmp_path):
    """A link to a missing file or heading is reported; a code span, a good link and a URL are not."""
    (tmp_path / "there.md").write_text("# A heading, with `code`\n\ntext\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md) [ok](there.md#a-heading-with-code) [web](https://example.org/x)\n"
        "`[not a link](gone.md)` [gone](gone.md) [bad](there.md#nope) [self](#title)\n\n# Title\n"
    )
    assert broken(page) == [
        "gone.md: no file " + str(tmp_path / "gone.md"),
        "there.md#nope: there.md has no heading #nope",
    ]


def test_the_docs_are_reachable_from_the_readme():
    """Every page in docs/ is linked from README.md or from the docs index, so none is an orphan."""
    linked = {
        (page.parent / urlsplit(t).path).resolve()
        for page in (ROOT / "README.md", ROOT / "docs" / "README.md")
        for t in links(page)
        if not urlsplit(t).scheme and urlsplit(t).path
    }
    orphans = [p.name for p in PAGES[1:] if p.resolve() not in linked and p.name != "README.md"]
    assert not orphans, f"docs/ pages no page links to: {orphans}; link them from docs/README.md"


def indexed(index: Path = INDEX) -> list[str]:
    """The raw files the in-tree index lists: the first column of its table."""
    return ["benchmarks/results/" + f for f in re.findall(r"^\| `([^`]+)` \|", index.read_text(encoding="utf-8"), re.M)]


def branch_files() -> list[str] | None:
    """The files of the `results` branch (local, or the remote's after a plain `git clone`); None when this
    clone lacks it (a shallow or single-branch clone) or is no git checkout."""
    for ref in ("results", "origin/results"):
        found = subprocess.run(
            ["git", "-C", str(ROOT), "ls-tree", "-r", "--name-only", ref], capture_output=True, text=True
        )
        if found.returncode == 0:
            return found.stdout.split()
    return None


def unresolved(refs: list[str], files: list[str]) -> list[str]:
    """The references no file matches: a name, a glob (`sweep-*.json`) or a folder (`issue23-timeouts/`)."""
    return [
        r for r in refs if not any(f.startswith(r) if r.endswith("/") else fnmatch.fnmatchcase(f, r) for f in files)
    ]


def test_every_results_reference_is_indexed_and_on_the_branch():
    """Each `results:benchmarks/results/<file>` in README.md and docs/ is listed in benchmarks/results/INDEX.md,
    and, when the `results` branch is in this clone, every listed file is on it (without the branch, a shallow
    clone, the index is what the reference is checked against)."""
    refs = sorted({r for page in PAGES for r in RESULTS_REF.findall(page.read_text(encoding="utf-8"))})
    listed = indexed()
    assert refs, "no results: reference found; the pattern or the docs changed"
    assert not unresolved(refs, listed), f"not in benchmarks/results/INDEX.md: {unresolved(refs, listed)}"
    on_branch = branch_files()
    if on_branch is not None:
        missing = sorted(set(listed) - set(on_branch))
        assert not missing, f"listed in benchmarks/results/INDEX.md but not on the results branch: {missing}"


def test_the_checker_finds_an_unlisted_results_file(tmp_path):
    """A listed name, glob or folder resolves; a name nobody listed is reported."""
    index = tmp_path / "INDEX.md"
    index.write_text("| file | what |\n|---|---|\n| `a-1.json` | x |\n| `d/b.json` | y |\n")
    files = indexed(index)
    assert files == ["benchmarks/results/a-1.json", "benchmarks/results/d/b.json"]
    refs = ["benchmarks/results/a-*.json", "benchmarks/results/d/", "benchmarks/results/gone.json"]
    assert unresolved(refs, files) == ["benchmarks/results/gone.json"]
