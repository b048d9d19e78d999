"""Reading a result: docs/reading-a-result.md's three samples, each printed by serverbench's own renderer from a
committed run's file.

    .venv/bin/python benchmarks/reading_a_result.py render

- the session table and its flags: ``report.terminal.summary_table`` and the no-baseline line under it, as pytest
  prints them at a perf session's end, over the README example's servers (SESSION_VARIANTS) in the whole default
  run of benchmarks/results/choose-a-server.json.gz;
- the gate's verdict: ``report.comment.gate_comment``, the comment a pull request gets, over the decision file
  GATE (``serverbench gate --json``);
- the cost verdict: each ``pytest -m cost`` record's verdict line (``report.verdict.cost_line``), message and
  functions table (``report.comment.functions_table``), over the records file COST (``pytest -m cost
  --perf-json``) when one is committed; until then the block says so.

A unit test re-renders and compares (tests/unit/repo/test_reading_a_result.py).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from choose_server import RECORDS, gunzipped  # noqa: E402 (a sibling script)
from choose_server import read as read_results  # noqa: E402

from serverbench.judge.verdict import NO_BASELINE, Verdict  # noqa: E402
from serverbench.records import decisions, results  # noqa: E402
from serverbench.report.comment import Runner, functions_table, gate_comment  # noqa: E402
from serverbench.report.terminal import missing_baseline_line, summary_table  # noqa: E402
from serverbench.report.verdict import cost_line  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "reading-a-result.md"
GATE = ROOT / "benchmarks" / "results" / "gate-aiohttp-json-cost.json.gz"
COST = ROOT / "benchmarks" / "results" / "cost-example.json.gz"
COMMAND = "python benchmarks/reading_a_result.py render"
SESSION_VARIANTS = ("gunicorn-sync-w2", "aiohttp")  # the README's first example's servers
BLOCK = re.compile(
    r"(<!-- BEGIN MEASURED: (?P<name>reading-[a-z]+) [^\n]*-->\n)(?P<body>.*?)(<!-- END MEASURED: (?P=name) -->)",
    re.DOTALL,
)


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def read_decision(path: Path) -> decisions.ABDecision:
    """A decision file, gzip-compressed (``.gz``) or not."""
    return gunzipped(path, decisions.read)


def verdict_of(stored: Mapping[str, Any] | None) -> Verdict:
    """A record's stored verdict (none stored: no baseline)."""
    v = stored or {}
    return Verdict(v.get("status", NO_BASELINE), v.get("message", ""), v.get("baseline_rps"), v.get("ratio"))


def session_block(file: results.ResultsFile, records: Path, variants: Sequence[str] = SESSION_VARIANTS) -> str:
    """The end-of-session table of ``variants``' results in ``file``, as pytest prints it to a log (no terminal)."""
    chosen = [s for s in file.results if s.result.variant in variants]
    judged = [(s.result, verdict_of(s.verdict)) for s in chosen]
    skipped: dict[tuple[str, str], list[str]] = {}
    for skip in file.skipped:
        if skip.cell.split("/", 1)[0] in variants:
            skipped.setdefault((skip.cell, skip.reason), []).append(skip.workload)
    text = summary_table(judged, [f for f in file.failures if f.variant in variants], None, skipped=skipped)
    missing = [r for r, v in judged if v.status == NO_BASELINE]
    if missing:
        text += missing_baseline_line(len(missing), file.machine.get("id", "?")) + "\n"
    machine = file.machine
    return (
        f"```\n{text}```\n\n"
        f"The rows of {' and '.join(f'`{v}`' for v in variants)} in the whole default run of "
        f"{file.created[:10]} on {machine.get('cpu')}, {machine.get('cores')} cores (`{_name(records)}`, the "
        "records [choose a server](choose-a-server.md) is rendered from), printed by serverbench's summary table "
        "as a log shows it.\n"
    )


def gate_block(decision: decisions.ABDecision, path: Path) -> str:
    """The pull request's comment on one decision file, on the machine its windows name."""
    machine = decision.windows[0].result.machine if decision.windows else {}
    runner = Runner(cpu=machine.get("cpu"), cores=machine.get("cores"))
    comment = gate_comment(".", [(decision, ())], runner)
    when = decision.windows[0].result.timestamp[:10] if decision.windows else "an unrecorded date"
    return (
        f"```markdown\n{comment.rstrip()}\n```\n\n"
        f"The comment `serverbench ci` posts, rendered from the decision file `{_name(path)}` (`serverbench gate "
        f"--json` on {decision.cell}, measured {when}, its verdicts as that day's gate gave them). A decision file "
        "keeps no function profile, so the table of the functions a counted change came from is not in this one.\n"
    )


def cost_block(records: Sequence[Mapping[str, Any]] | None, path: Path) -> str:
    """Each counted cell's verdict line, the message a failing ``pytest -m cost`` test prints, and its functions;
    no records committed: a sentence saying so and how to make them."""
    if not records:
        return (
            f"No `pytest -m cost` records are committed yet: `pytest -m cost --perf-json FILE` writes them, against a "
            f"stored cost baseline, and this block is rendered from them once they are in {_name(path.parent)}/ as "
            f"{path.name}.\n"
        )
    lines = ["```"]
    for r in sorted(records, key=lambda r: r["key"]):
        verdict = r.get("verdict") or {}
        lines += [cost_line(r), f"{r['key']}: {verdict.get('message', 'no verdict')}", ""]
    lines[-1:] = ["```", ""]
    for r in sorted(records, key=lambda r: r["key"]):
        lines += functions_table((r.get("verdict") or {}).get("attribution") or ())
    return "\n".join(lines) + f"\nRendered from `{_name(path)}`.\n"


def blocks(records: Path = RECORDS, gate: Path = GATE, cost: Path = COST) -> dict[str, str]:
    """Each block's body by name, from the committed files."""
    out = {"reading-session": session_block(read_results(records), records)}
    if gate.exists():
        out["reading-gate"] = gate_block(read_decision(gate), gate)
    else:
        out["reading-gate"] = f"No decision file is committed (`{_name(gate)}`).\n"
    out["reading-cost"] = cost_block(read_results(cost).cost if cost.exists() else None, cost)
    return out


def render(doc: Path = DOC, write: bool = True, **files: Path) -> dict[Path, str]:
    """The page with its blocks re-rendered: {path: text}; written when ``write``."""
    made = blocks(**files)
    text = doc.read_text(encoding="utf-8")
    new = BLOCK.sub(lambda m: m.group(1) + made.get(m["name"], m["body"]) + m.group(4), text)
    if write and new != text:
        doc.write_text(new, encoding="utf-8")
        print(doc)
    return {doc: new}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    sub.add_parser("render", help="rewrite docs/reading-a-result.md's samples from the committed files")
    parser.parse_args(argv)
    render()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
