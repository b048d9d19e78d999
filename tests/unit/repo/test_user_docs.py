"""The user pages (README.md, docs/*.md) read as documentation, not as a lab notebook: no dated diary entries, no
tracker words, no lab lock in a command a user copies; the lab (docs/lab/) names one load lock in every command."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
USER_PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LAB_PAGES = sorted((ROOT / "docs" / "lab").glob("*.md"))
LOAD_LOCK = "/tmp/serverbench-load.lock"
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")
TRACKER = re.compile(r"\bissue \d+|\bstop \d+|\bhelpers?\b|\bthe lead's\b", re.IGNORECASE)
LOCK = re.compile(r"\bflock\b|/tmp/[\w.-]+\.lock")
# A rendered block (<!-- BEGIN MEASURED: ... --> to its END, or a benchmark's "<!-- x table (benchmarks/x.py render)
# -->" to "<!-- end of the x table -->") carries its measurement's date: a figure's source.
BEGIN = re.compile(r"<!-- BEGIN (MEASURED|GENERATED): |<!-- [\w ,]+ \(benchmarks/[\w.]+ render\) -->")
END = re.compile(r"<!-- END (MEASURED|GENERATED): |<!-- end of the ")


def prose_lines(page: Path):
    """(line number, line) of a page outside its rendered blocks."""
    inside = False
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if BEGIN.search(line):
            inside = True
        elif END.search(line):
            inside = False
        elif not inside:
            yield number, line


def notebook_traces(pages: list[Path]) -> list[str]:
    """Each line of ``pages`` holding a dated entry, a tracker word or a lock, named by page and line."""
    found = []
    for page in pages:
        name = page.relative_to(ROOT) if page.is_relative_to(ROOT) else page.name
        for number, line in prose_lines(page):
            for what, pattern in (("a date", DATE), ("a tracker word", TRACKER), ("a lab lock", LOCK)):
                hit = pattern.search(line)
                if hit:
                    found.append(f"{name}:{number}: {what} ({hit[0]!r})")
    return found


def test_the_user_pages_hold_no_notebook_traces():
    """No user page states a dated entry, a tracker word ("issue 23", "helpers") or a lock outside its rendered
    blocks: how a figure was measured lives in docs/lab/, linked from the figure."""
    found = notebook_traces(USER_PAGES)
    assert not found, "move these to docs/lab/ (and link them), or reword:\n" + "\n".join(found)


def test_every_lab_command_names_the_one_load_lock():
    """A lab command that waits for the machine names /tmp/serverbench-load.lock, so two pages' commands wait for
    each other."""
    other = [
        f"{page.relative_to(ROOT)}:{n}: {lock}"
        for page in LAB_PAGES
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        for lock in re.findall(r"/tmp/[\w.-]*load[\w.-]*\.lock", line)
        if lock != LOAD_LOCK
    ]
    assert LAB_PAGES, "no docs/lab/ page"
    assert not other, f"lab commands naming another load lock than {LOAD_LOCK}:\n" + "\n".join(other)


def test_a_notebook_line_is_named_by_page_and_line(tmp_path):
    """A dated entry, an issue number and a flock in a page are each found at their line; a rendered block's date
    is its measurement's and is not."""
    page = tmp_path / "page.md"
    page.write_text(
        "fine\nOn 2026-11-23 we saw it\nas issue 23 asked\n    flock /tmp/x.lock pytest\n"
        "<!-- BEGIN MEASURED: x (by `y`) -->\nMeasured 2026-12-02.\n<!-- END MEASURED: x -->\n",
        encoding="utf-8",
    )
    assert [f.split(": ", 1)[0] for f in notebook_traces([page])] == ["page.md:2", "page.md:3", "page.md:4"]


def test_the_requirements_page_names_every_package_run_installs():
    """docs/requirements.md's apt table and undo line name exactly the packages `run` may install (need+=, oha_apt+=
    and oha_lean_lacks' echo lines), so a package added to `run` without the page fails here."""
    script = (ROOT / "run").read_text(encoding="utf-8")
    installed = set(re.findall(r"(?:need|oha_apt)\+=\(([\w.-]+)\)", script)) | set(
        re.findall(r"\|\| echo ([\w.-]+)", script)
    )
    page = (ROOT / "docs" / "requirements.md").read_text(encoding="utf-8")
    table = {
        name
        for line in page.splitlines()
        if line.startswith("| ")
        for name in re.findall(r"`([\w.-]+)`", line.split(" | ", 1)[-1])
    }
    undo = set(page.split("apt-get remove --purge", 1)[1].split("#", 1)[0].replace("\\", " ").split())
    assert installed, "no package found in run: the pattern or run changed"
    assert table == installed, (
        f"docs/requirements.md's table: missing {installed - table}, not in run {table - installed}"
    )
    assert undo == installed, (
        f"docs/requirements.md's undo line: missing {installed - undo}, not in run {undo - installed}"
    )


def test_the_reference_page_lists_each_commands_exit_statuses():
    """docs/reference.md's exit-status table is every gating command's EXIT_STATUSES, row for row."""
    from serverbench.cli import bisect, ci, gate

    page = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    rows = [line for line in page.splitlines() if line.startswith("| `serverbench ")]
    expected = [
        f"| `serverbench {name}` | {status} | {meaning} |"
        for name, module in (("gate", gate), ("ci", ci), ("bisect", bisect))
        for status, meaning in module.EXIT_STATUSES
    ]
    assert rows == expected, "docs/reference.md's exit statuses differ from the commands' EXIT_STATUSES"


def test_getting_started_runs_the_readmes_first_example():
    """docs/getting-started.md's first command is the README's first example, which tests.yml's readme-example job
    runs as written (tests/unit/repo/test_workflows.py), so the page's command is run by CI too."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8").split("## A first example", 1)[1]
    first = readme.split("```sh\n", 1)[1].split("\n", 1)[0]
    page = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    assert page.split("```sh\n", 1)[1].split("\n", 1)[0] == first
