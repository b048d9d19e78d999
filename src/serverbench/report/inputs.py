"""What a report is built from: results files (``--perf-json``) and A/B decision files, each read once.

A results file is read by :mod:`serverbench.records.results` (schema 1 and 2).  Two kinds of A/B
files are recognised: one gate decision (``serverbench gate --json``: every signal's verdict,
interval and paired values) and a proof run of the gate (``benchmarks/ab_rates.py --out``: many
decisions under injected costs, each signal's change and interval, no pairs).  The threshold drawn
for each signal is the gate's minimum effect for it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..judge.signals import GROWTH, SIGNALS
from ..records import jsonfile
from ..records import results as results_file
from ..records.cost import NOT_RECORDED
from ..records.results import ResultsFile


def threshold(signal: str) -> float | None:
    """The gate's minimum effect for ``signal`` (the line its change must cross to fail); None if it does not gate."""
    from ..judge.ab import COST, GATE_POLICY
    from ..judge.cost import COST_MIN_EFFECT

    if signal == COST:  # counted: its limit is at least this (wider when the arms' A/A spread is)
        return COST_MIN_EFFECT
    if signal == GROWTH:  # a difference of slopes, MB per 10k requests
        from ..judge.memory import GROWTH_MIN_EFFECT

        return GROWTH_MIN_EFFECT
    for s in SIGNALS:
        if s.name == signal and s.gated:
            return s.min_effect if s.min_effect is not None else GATE_POLICY.min_effect
    return None  # not gated (peak RSS), or a signal this serverbench does not know


def signal_label(signal: str) -> str:
    from ..judge.ab import COST, COST_LABEL, SYSTEM, SYSTEM_LABEL

    if signal == COST:
        return COST_LABEL
    if signal == SYSTEM:
        return SYSTEM_LABEL
    return next((s.label for s in SIGNALS if s.name == signal), signal)


@dataclass(frozen=True)
class SignalDecision:
    """One signal of one A/B decision: change, interval, verdict, and the candidate/base ratio of each pair."""

    name: str
    verdict: str
    delta: float
    ci: tuple[float, float]
    p: float | None
    n: int
    ratios: tuple[float, ...] = ()
    unit: str = ""  # "": delta and interval are relative; else their unit (growth: MB per 10k requests)

    @property
    def threshold(self) -> float | None:
        return threshold(self.name)


@dataclass(frozen=True)
class Decision:
    """One whole A/B decision (a gate run)."""

    label: str
    verdict: str
    signals: tuple[SignalDecision, ...]
    detail: str = ""


@dataclass(frozen=True)
class DecisionFile:
    """A file of A/B decisions: one (a gate --json record) or many (a proof run, grouped by condition)."""

    path: Path
    kind: str  # "gate" or "proof"
    decisions: tuple[Decision, ...]


@dataclass(frozen=True)
class Cost:
    """A counted-instruction cost record (``"cost"`` in a --perf-json file, :mod:`serverbench.records.cost`)."""

    source: Path
    variant: str
    app: str
    workload: str
    per_request: float
    verdict: str
    system: Mapping[str, Any] | None = None  # calls by name, bytes sent and received, connections per request
    system_absent: str = ""  # why ``system`` is None (a record from before it was counted, an untraced count)
    kept_per_request: float | None = None
    kept_absent: str = ""
    kept_without_valgrind: int = 0  # the requests memory kept was read over without valgrind; 0: in the window


@dataclass(frozen=True)
class Inputs:
    results: tuple[ResultsFile, ...]
    decisions: tuple[DecisionFile, ...]
    costs: tuple[Cost, ...] = ()
    skipped: tuple[Path, ...] = ()  # JSON files found in a folder that are neither results nor decisions

    def source_of(self, path: Path) -> str:
        return next((name for name, run in self.sources.items() if run.path == path), path.stem)

    @property
    def sources(self) -> dict[str, ResultsFile]:
        """Results files by a short unique name (the file's stem, numbered when two share one)."""
        out: dict[str, ResultsFile] = {}
        for run in self.results:
            name, k = run.path.stem, 2
            while name in out:
                name, k = f"{run.path.stem}-{k}", k + 1
            out[name] = run
        return out


def _signal(name: str, rec: Mapping[str, Any], pairs: Mapping[str, Any] | None) -> SignalDecision:
    ratios: tuple[float, ...] = ()
    unit = str(rec.get("unit") or "")
    if pairs and name in pairs and not unit:  # a signal judged on differences has no ratios
        base, cand = pairs[name]["base"], pairs[name]["candidate"]
        ratios = tuple(c / b - 1.0 for b, c in zip(base, cand) if b)
    lo, hi = rec["ci"]
    return SignalDecision(
        name,
        rec["verdict"],
        float(rec["delta"]),
        (float(lo), float(hi)),
        None if rec.get("p") is None else float(rec["p"]),
        int(rec.get("n") or len(ratios)),
        ratios,
        unit,
    )


def gate_decision(path: Path, data: Mapping[str, Any]) -> DecisionFile:
    order = [s.name for s in SIGNALS]
    names = sorted(data["decisions"], key=lambda k: order.index(k) if k in order else len(order))
    signals = tuple(_signal(k, data["decisions"][k], data.get("pairs")) for k in names)
    rate = data.get("rate")
    detail = (
        f"{data.get('mode', '?')} mode, {len(data.get('windows') or ())} windows, "
        f"fixed rate {'off' if rate is None else f'{rate:g} req/s'}, extended {data.get('extended')}, "
        f"{data.get('seconds', 0):.0f} s"
    )
    return DecisionFile(path, "gate", (Decision(str(data.get("cell", path.stem)), data["verdict"], signals, detail),))


def proof_decisions(path: Path, data: Mapping[str, Any]) -> DecisionFile:
    out = []
    calibration = data.get("calibration") or {}
    records = [{**calibration, "condition": "A/A", "round": "calibration"}] if "verdict" in calibration else []
    for rec in records + list(data["decisions"]):
        # Early proof runs stored only the throughput signal, at the top level of each decision.
        signals = tuple(_signal(k, v, None) for k, v in (rec.get("signals") or {"throughput": rec}).items())
        label = f"{rec.get('condition', '?')} #{rec.get('round', len(out))}"
        out.append(Decision(label, rec["verdict"], signals, f"{rec.get('knob', '')}={rec.get('value', '')}"))
    return DecisionFile(path, "proof", tuple(out))


def read_decision(path: Path, data: Any) -> DecisionFile | None:
    """A decision file, or None when ``data`` is not one."""
    if not isinstance(data, dict):
        return None
    try:
        if isinstance(data.get("decisions"), dict) and "verdict" in data:
            return gate_decision(path, data)
        if isinstance(data.get("decisions"), list):
            return proof_decisions(path, data)
    except (KeyError, TypeError, ValueError, ZeroDivisionError, OverflowError, AttributeError) as exc:
        raise ConfigError(
            f"{path}: an A/B decision file that cannot be read ({type(exc).__name__}: {exc}); "
            "pass files written by `serverbench gate --json`"
        ) from None
    return None


def expand(paths: Iterable[str | Path]) -> list[tuple[Path, bool]]:
    """(file, named explicitly) for each file named and each *.json of each folder named (sorted);
    a missing one is a ConfigError."""
    out: list[tuple[Path, bool]] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            out += [(p, False) for p in sorted(path.glob("*.json"))]
        elif path.is_file():
            out.append((path, True))
        else:
            raise ConfigError(
                f"{name}: no such file or folder (give --perf-json results files, A/B decision files "
                "from `serverbench gate --json`, or folders of them)"
            )
    return out


def costs(path: Path, records: Any) -> list[Cost]:
    """The cost records of a results file; one without a count is a ConfigError naming the file."""
    out = []
    for rec in records or ():
        try:
            per_request = rec.get("instructions_per_request") or rec["instructions"] / rec["requests"]
            out.append(
                Cost(
                    path,
                    rec["variant"],
                    rec.get("app") or "",
                    rec["workload"],
                    float(per_request),
                    str((rec.get("verdict") or {}).get("status", "-")),
                    rec.get("system"),
                    str(rec.get("system_absent", "" if "system" in rec else NOT_RECORDED)),
                    None if rec.get("kept_per_request") is None else float(rec["kept_per_request"]),
                    str(rec.get("kept_absent", "" if "kept_per_request" in rec else NOT_RECORDED)),
                    int(rec.get("kept_requests", 0)) if rec.get("kept_uninstrumented") else 0,
                )
            )
        except (KeyError, TypeError, ValueError, ZeroDivisionError, AttributeError, OverflowError) as exc:
            raise ConfigError(f"{path}: a cost record that cannot be read ({type(exc).__name__}: {exc})") from None
    return out


def load(paths: Sequence[str | Path]) -> Inputs:
    """Every file named, each recognised as results or decisions.  A file named that is neither is a
    ConfigError naming it; such a file found in a folder is skipped and listed in ``skipped``."""
    results, decisions, counted, skipped = [], [], [], []
    for path, named in expand(paths):
        try:
            data = jsonfile.read(path)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ConfigError(
                f"{path}: not a JSON file ({exc}); give --perf-json results or A/B decision files"
            ) from None
        if isinstance(data, dict) and "results" in data:
            try:
                results.append(results_file.read(path))
                counted += costs(path, data.get("cost"))
            except results_file.ResultsFileError as exc:
                raise ConfigError(str(exc)) from None
            continue
        decision = read_decision(path, data)
        if decision is not None:
            decisions.append(decision)
        elif named:
            raise ConfigError(
                f"{path}: neither a --perf-json results file nor an A/B decision file "
                "(`serverbench gate --json`); leave it out"
            )
        else:
            skipped.append(path)
    return Inputs(tuple(sorted(results, key=lambda r: r.created)), tuple(decisions), tuple(counted), tuple(skipped))
