"""Every relative link in README.md and docs/ points to a file (and heading) that exists, every file of
benchmarks/results/ they cite is in the tree, and none of them sends a reader to another branch."""

from __future__ import annotations

import fnmatch
import re
import subprocess
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[3]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "lab").glob("*.md"))]
INDEXES = (ROOT / "README.md", ROOT / "docs" / "README.md", ROOT / "docs" / "lab" / "README.md")
PARSER = MarkdownIt("commonmark").enable("table")
RESULTS = ROOT / "benchmarks" / "results"
INDEX = RESULTS / "INDEX.md"
CITED = re.compile(r"`(benchmarks/results/[^`\s]+)`")  # a code span holding a path alone (a command has spaces)
# What sent a reader to the unpublished `results` branch: its name, a ref into it, the worktree the docs made of it.
BRANCH = re.compile(r"`results` branch|results branch|origin/results|results:benchmarks/|serverbench-results")


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
    """Every page in docs/ is linked from README.md, the docs index or the lab's index (docs/lab/README.md, itself
    linked from the docs index), so none is an orphan."""
    linked = {
        (page.parent / urlsplit(t).path).resolve()
        for page in INDEXES
        for t in links(page)
        if not urlsplit(t).scheme and urlsplit(t).path
    }
    orphans = [str(p.relative_to(ROOT)) for p in PAGES[1:] if p.resolve() not in linked and p not in INDEXES[:2]]
    assert not orphans, f"docs/ pages no index links to: {orphans}; link them from docs/README.md or docs/lab/README.md"


def tracked() -> list[str]:
    """The files under benchmarks/results/ that a clone of this commit has (git's index: a file .gitignore keeps out
    may still lie in this working tree); the folder as it is when this is no git checkout."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "benchmarks/results"], capture_output=True, text=True, check=False
    )
    if listed.returncode == 0 and listed.stdout:
        return listed.stdout.split()
    return [p.relative_to(ROOT).as_posix() for p in RESULTS.rglob("*") if p.is_file()]


def alternatives(name: str) -> list[str]:
    """A name with an {a,b} alternation as the names it stands for (`backend-faults.{json,md}`)."""
    found = re.search(r"\{([^}]*)\}", name)
    if found is None:
        return [name]
    return [n for alt in found[1].split(",") for n in alternatives(name[: found.start()] + alt + name[found.end() :])]


def unresolved(refs: list[str], files: list[str]) -> list[str]:
    """The references no file matches: a name, a glob (`sweep-*.json`), a folder (`issue23-timeouts/`) or an
    alternation (`x.{json,md}`, every name of it)."""

    def found(name: str) -> bool:
        return any(f.startswith(name) if name.endswith("/") else fnmatch.fnmatchcase(f, name) for f in files)

    return [r for r in refs if not all(found(n) for n in alternatives(r))]


def test_every_results_file_a_page_cites_is_in_the_tree():
    """Each `benchmarks/results/<file>` that README.md, docs/ or the folder's INDEX.md names on its own (a code span
    holding the path alone, not a command's output path) is a file a clone of this commit has."""
    refs = sorted({r for page in (*PAGES, INDEX) for r in CITED.findall(page.read_text(encoding="utf-8"))})
    assert refs, "no benchmarks/results/ file cited; the pattern or the docs changed"
    assert not unresolved(refs, tracked()), f"cited but not in the tree: {unresolved(refs, tracked())}"


def test_no_page_sends_a_reader_to_another_branch():
    """No doc, benchmark script or help text sends a reader to the `results` branch (or any ref of it): only main is
    published, so what they cite must be in its tree."""
    texts = [*PAGES, INDEX, *sorted((ROOT / "benchmarks").glob("*.[ps][yh]")), *sorted((ROOT / "src").rglob("*.py"))]
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in texts
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if BRANCH.search(line)
    ]
    assert not found, "pages that send a reader to a branch:\n  " + "\n  ".join(found)


def test_the_checker_finds_a_cited_file_not_in_the_tree():
    """A name, glob, folder or alternation whose files are there resolves; a name with no file, or an alternation
    missing one of its names, is reported."""
    files = ["benchmarks/results/a-1.json", "benchmarks/results/d/b.json", "benchmarks/results/x.json"]
    refs = [
        "benchmarks/results/a-*.json",
        "benchmarks/results/d/",
        "benchmarks/results/a-1.{json}",
        "benchmarks/results/x.{json,md}",
        "benchmarks/results/gone.json",
    ]
    assert unresolved(refs, files) == ["benchmarks/results/x.{json,md}", "benchmarks/results/gone.json"]
    assert BRANCH.search("`git show origin/results:x`") and not BRANCH.search("benchmarks/results/answers.json")
