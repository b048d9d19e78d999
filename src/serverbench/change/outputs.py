"""What a ``serverbench ci`` run leaves in ``--out`` (what the action posts and uploads as one artifact):

comment.md     the comment's body, its marker first (always written, an error's too)
summary.md     exactly what was appended to $GITHUB_STEP_SUMMARY (when it is set)
decision*.json the gate's decision files (``serverbench gate --json``), one per endpoint and variant
cost.json      the head's ``pytest -m cost`` records with their verdicts (cost mode; --perf-json)
report.html    the HTML report of those decisions or cost records (``serverbench report``)
result.json    mode, status, verdict, post, pull_request, fork, lines (:func:`.result.record`)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..errors import ConfigError
from ..records import decisions as decision_file
from ..report import html
from ..report.comment import summary
from ..report.inputs import load
from ..report.verdict import where
from .event import Event
from .result import Outcome, record

DECISION = "decision"
COST_RESULTS = "cost.json"


def decision_names(outcome: Outcome) -> list[str]:
    """``decision.json`` for one decision; ``decision-ENDPOINT-VARIANT.json`` each for several."""
    runs = [run for run, _ in outcome.decisions]
    if len(runs) == 1:
        return [f"{DECISION}.json"]
    return [f"{DECISION}-{'-'.join(where(run.cell))}.json" for run in runs]


def write(out: Path, outcome: Outcome, policy: str, event: Event, step_summary: str | None) -> None:
    """Every file of ``--out`` for ``outcome``, and the step summary appended to ``step_summary`` (None: not set)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "comment.md").write_text(outcome.comment, encoding="utf-8")
    said = summary(outcome.comment)
    (out / "summary.md").write_text(said, encoding="utf-8")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as f:
            f.write(said)
    files = []
    for name, (run, _) in zip(decision_names(outcome), outcome.decisions):
        decision_file.write(out / name, run)
        files.append(out / name)
    if outcome.cost_results is not None and outcome.cost_results.is_file():
        files.append(outcome.cost_results)
    write_report(out / "report.html", files, f"serverbench {outcome.mode}")
    (out / "result.json").write_text(json.dumps(record(outcome, policy, event), indent=1) + "\n", encoding="utf-8")


def write_report(path: Path, files: list[Path], title: str) -> None:
    """The HTML report of ``files``; none (an error, nothing measured): no report, and a note saying so."""
    if not files:
        print(f"note: no {path.name}: nothing was measured to report", file=sys.stderr)
        return
    try:
        html.write(path, load(files), title)
    except ConfigError as exc:
        print(f"note: no {path.name}: {exc}", file=sys.stderr)
