"""docs/report.md's folder line, `serverbench report tests/integration/sessions/records/ -o report.html`, run exactly
as written on the records committed there (two short real sessions), from a folder shaped as a clone."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SERVERBENCH = Path(sys.executable).parent / "serverbench"
LINE = re.search(r"^serverbench report tests/\S+/ -o report\.html.*$", (ROOT / "docs" / "report.md").read_text(), re.M)


def test_the_documented_folder_line_writes_the_report_of_the_committed_records(tmp_path):
    """Exit 0; report.html written from every results file of the folder, opening with the throughput charts."""
    assert LINE is not None, "docs/report.md no longer shows the folder line"
    args = shlex.split(LINE.group(0).split("#")[0])
    folder = args[2]
    shutil.copytree(ROOT / folder, tmp_path / folder)
    done = subprocess.run([str(SERVERBENCH), *args[1:]], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    given = len(list((ROOT / folder).glob("*.json")))
    counts = re.search(r"from (\d+) results file\(s\) and (\d+) decision file\(s\)", done.stdout + done.stderr)
    assert counts and int(counts[1]) == given >= 2, done.stdout + done.stderr
    assert "sections: throughput, summary" in done.stdout
    assert (tmp_path / "report.html").read_text().startswith("<!doctype html>")
