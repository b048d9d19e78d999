"""Regression verdicts for same-session, ABBA-paired A/B benchmark measurements.

Why these statistics: per-pair log ratios r = ln(cand/base) cancel drift shared by a pair
and make relative effects additive and near-symmetric. The one-sided paired test uses the
larger p of the t-test (efficient with Gaussian-ish noise) and the exact Wilcoxon
signed-rank test (robust to outliers, but with a floor of 0.5**n). So neither test alone can
raise an alarm. Bonferroni (alpha / cells) bounds the family-wise rate. The min_effect gate on
exp(mean r) - 1 keeps tiny significant shifts from failing the suite.

Zero-variance input (all ratios identical): the t-test is undefined. We treat its p as
0 on the side of the shift and 1 on the other. The combined p is then the Wilcoxon
floor 0.5**n for a shift and 1.0 for identical values. CI and dispersion collapse to
the point estimate and 0.

High dispersion asks for a rerun, except when the result is unmistakable: significant AND the
whole confidence interval lies beyond min_effect on one side. The interval is computed from
the noisy pairs, so noise has already widened it; a 35% drop whose interval is [-46%, -20%]
does not become doubtful because the machine was busy, and rerunning it only wastes time.

Settled (group-sequential looks, :mod:`serverbench.judge.ab`): with ``detect`` set, a signal whose
one-sided (1 - beta) upper bound on the worsening lies below ``detect`` is settled: it passes even before
enough pairs could show a regression, and it is not borderline.  Stopping on a settled pass never adds a
false regression (a pass only ends the search for one); ``beta`` bounds, per look, the chance of settling
when the true worsening is ``detect``.

A :class:`Decision` is a record (:mod:`serverbench.records.decisions` stores and reads it back); which
signals are judged, and when to measure more, is :mod:`serverbench.judge.ab`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..records.decisions import Decision
from ..records.decisions import p_text as _fmt_p
from ..records.decisions import percent as _pct
from .signed_rank import signed_rank_p

VERDICTS = ("pass", "regression", "improvement", "inconclusive", "rerun")
MAD_SCALE = 1.4826


def _is_real(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


@dataclass(frozen=True)
class Policy:
    alpha: float = 0.05
    cells: int = 1
    min_effect: float = 0.05
    min_pairs: int = 5
    max_dispersion: float = 0.10
    higher_is_better: bool = True
    detect: float | None = None  # the worsening a pass must rule out (one-sided 1 - beta bound below it); None: off
    beta: float = 0.05

    def __post_init__(self):
        checks = (
            ("alpha", lambda v: _is_real(v) and 0 < v < 1, "a number in the open interval (0, 1)"),
            ("cells", lambda v: _is_int(v) and v >= 1, "an integer >= 1"),
            ("min_effect", lambda v: _is_real(v) and 0 <= v < 1, "a number in [0, 1)"),
            ("min_pairs", lambda v: _is_int(v) and v >= 2, "an integer >= 2"),
            (
                "max_dispersion",
                lambda v: _is_real(v) and v > 0 and not math.isnan(v),
                "a number > 0 (inf disables the check)",
            ),
            ("higher_is_better", lambda v: isinstance(v, (bool, np.bool_)), "True or False"),
            ("detect", lambda v: v is None or (_is_real(v) and 0 < v < math.inf), "None or a number > 0"),
            ("beta", lambda v: _is_real(v) and 0 < v < 1, "a number in the open interval (0, 1)"),
        )
        for name, ok, accepted in checks:
            value = getattr(self, name)
            if not ok(value):
                raise ValueError(f"Policy.{name}={value!r} is invalid; accepted: {accepted}")

    @property
    def cell_alpha(self) -> float:
        """Per-cell significance level (Bonferroni over `cells`)."""
        return self.alpha / self.cells


def wilcoxon_min_pairs(cell_alpha: float) -> int:
    """Smallest n whose exact one-sided Wilcoxon floor 0.5**n is below `cell_alpha`."""
    n = 1
    while 0.5**n >= cell_alpha:
        n += 1
    return n


def _as_array(x, name: str, ndim: int) -> np.ndarray:
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must contain only numbers: {exc}") from None
    if a.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {a.shape}")
    bad = np.flatnonzero(~np.isfinite(a.ravel()))
    if bad.size:
        raise ValueError(f"{name} contains a non-finite value {a.ravel()[bad[0]].item()!r} at flat index {bad[0]}")
    bad = np.flatnonzero(a.ravel() <= 0)
    if bad.size:
        raise ValueError(
            f"{name} must be > 0 (ratios of positive measurements); "
            f"got {a.ravel()[bad[0]].item()!r} at flat index {bad[0]}"
        )
    return a


def _wilcoxon_p(s: np.ndarray, alternative: str) -> np.ndarray:
    """Row-wise one-sided Wilcoxon p; identical to scipy's method='auto' per row."""
    m, n = s.shape
    p = np.empty(m)
    srt = np.sort(np.abs(s), axis=1)
    clean = (srt[:, 0] > 0) & np.all(np.diff(srt, axis=1) > 0, axis=1) & (n <= 50)
    if clean.any():  # no zeros, no ties, n <= 50: scipy's 'auto' picks the exact test
        p[clean] = stats.wilcoxon(s[clean], alternative=alternative, method="exact", axis=1).pvalue
    for i in np.flatnonzero(~clean):  # zeros or ties: counted exactly up to 13 pairs, as scipy would enumerate
        p[i] = signed_rank_p(s[i], alternative)
    return p


def _decide_batch(base, cand, policy: Policy = Policy()) -> list[Decision]:
    """Vectorised decide() over rows of 2-D arrays (runs x pairs); decide() is a 1-row call."""
    b, c = _as_array(base, "base", 2), _as_array(cand, "cand", 2)
    if b.shape != c.shape:
        raise ValueError(f"base and cand must have the same shape (pairs), got {b.shape} and {c.shape}")
    m, n = b.shape
    r = np.log(c) - np.log(b)
    sign = -1.0 if policy.higher_is_better else 1.0
    s = sign * r  # s > 0 means "worse", whatever the metric's direction
    a_cell = policy.cell_alpha
    nan = np.full(m, np.nan)
    mean, half, med, disp, reach = nan, nan, nan, nan, nan
    p_worse, p_better = nan, nan
    if n >= 1:
        mean, med = r.mean(axis=1), np.median(r, axis=1)
        disp = MAD_SCALE * np.median(np.abs(r - med[:, None]), axis=1)
    if n >= 2:
        se = r.std(axis=1, ddof=1) / math.sqrt(n)
        half = stats.t.ppf(1 - a_cell / 2, n - 1) * se
        # the one-sided (1 - beta) bound on the log ratio, on the worse side
        reach = mean + sign * stats.t.ppf(1 - policy.beta, n - 1) * se
        const = np.ptp(s, axis=1) == 0
        s0 = s[:, 0]
        # Zero variance: t p := 0 on the side of the shift, 1 otherwise; Wilcoxon gives
        # its floor 0.5**n for a shift and 1.0 for no change (see module docstring).
        tw, tb = np.where(s0 > 0, 0.0, 1.0), np.where(s0 < 0, 0.0, 1.0)
        ww, wb = np.where(s0 > 0, 0.5**n, 1.0), np.where(s0 < 0, 0.5**n, 1.0)
        v = ~const
        if v.any():
            t_stat = stats.ttest_1samp(s[v], 0.0, axis=1, alternative="greater").statistic
            tw[v], tb[v] = stats.t.sf(t_stat, n - 1), stats.t.cdf(t_stat, n - 1)
            ww[v], wb[v] = _wilcoxon_p(s[v], "greater"), _wilcoxon_p(s[v], "less")
        p_worse, p_better = np.maximum(tw, ww), np.maximum(tb, wb)
    n_floor = wilcoxon_min_pairs(a_cell)
    out = []
    for i in range(m):
        out.append(_verdict(policy, n, n_floor, mean[i], half[i], med[i], disp[i], p_worse[i], p_better[i], reach[i]))
    return out


def _expm1(x: float) -> float:
    """expm1 that saturates instead of overflowing (a CI's upper end from two pairs at a tiny alpha)."""
    return math.expm1(min(x, 700.0))


def _verdict(pol: Policy, n, n_floor, mean, half, med, disp, p, p_better, reach=math.nan) -> Decision:
    delta = math.expm1(mean)
    ci = (math.expm1(mean - half), _expm1(mean + half))
    bound = -math.expm1(reach) if pol.higher_is_better else _expm1(reach)  # the worsening it still admits
    settled = pol.detect is not None and bound < pol.detect
    if not pol.higher_is_better:  # make "worse"/"better" amounts positive for both directions
        worse, better, ci_worse, ci_best_worse = delta, -delta, ci[1], ci[0]
    else:
        worse, better, ci_worse, ci_best_worse = -delta, delta, -ci[0], -ci[1]
    a_cell, eff = pol.cell_alpha, pol.min_effect
    lvl = f"per-cell alpha {a_cell:.3g}"
    stats_txt = (
        f"Δ {_pct(delta)} (CI {_pct(ci[0])}..{_pct(ci[1])}, median pair {_pct(math.expm1(med))}), "
        f"one-sided p(worse)={_fmt_p(p)}, n={n}"
    )
    borderline = False
    ruled_out = (
        f"the worsening's one-sided {1 - pol.beta:.4g} bound {_pct(max(bound, 0.0), False)} is "
        f"{'' if settled else 'not '}below {_pct(pol.detect or 0.0, False)}, the smallest the gate must catch"
    )
    if n < pol.min_pairs:
        verdict = "inconclusive"
        reason = (
            f"Only {n} pairs, fewer than min_pairs={pol.min_pairs}; need at least "
            f"{max(pol.min_pairs, n_floor)} pairs before a pass or regression can be declared."
        )
    elif n < n_floor and settled:
        verdict = "pass"
        reason = (
            f"No regression to catch: {ruled_out} (a regression could not be shown yet: "
            f"0.5**{n} is not below the {lvl}; {stats_txt})."
        )
    elif n < n_floor:
        verdict = "inconclusive"
        reason = (
            f"With n={n} pairs the exact Wilcoxon floor 0.5**{n}={0.5**n:.3g} is not below "
            f"the {lvl} (alpha {pol.alpha:g} / {pol.cells} cells), so no regression could be shown; "
            f"need at least {n_floor} pairs."
        )
    elif (
        disp > pol.max_dispersion
        and not ((p < a_cell and ci_best_worse >= eff) or (p_better < a_cell and -ci_worse >= eff))
        # a settled pass stands however noisy the pairs: its bound already carries the noise
        and not (settled and not (p < a_cell and worse >= eff) and not (p_better < a_cell and better >= eff))
    ):
        verdict = "rerun"
        reason = (
            f"Dispersion of per-pair log ratios {_pct(disp, False)} exceeds max_dispersion "
            f"{_pct(pol.max_dispersion, False)}; the machine was too noisy, rerun ({stats_txt})."
        )
    elif p < a_cell and worse >= eff:
        verdict = "regression"
        borderline = ci_best_worse < eff  # CI still admits a drop smaller than min_effect
        reason = (
            f"Candidate is {_pct(worse, False)} worse, significant at {lvl} and at least "
            f"min_effect {_pct(eff, False)} ({stats_txt})."
        )
    elif p_better < a_cell and better >= eff:
        verdict = "improvement"
        borderline = -ci_worse < eff  # CI still admits a gain smaller than min_effect
        reason = (
            f"Candidate is {_pct(better, False)} better, significant in the better direction "
            f"(p={_fmt_p(p_better)}) at {lvl} and at least min_effect {_pct(eff, False)} ({stats_txt})."
        )
    else:
        verdict = "pass"
        # not settled: more pairs could still show a regression (the CI's worse end reaches min_effect, or with
        # detect set, the one-sided bound reaches detect)
        borderline = ci_worse >= eff if pol.detect is None else not settled
        why = "not significant" if p >= a_cell else f"smaller than min_effect {_pct(eff, False)}"
        reason = f"No regression: the {'worsening' if worse > 0 else 'change'} is {why} at {lvl} ({stats_txt})."
        if pol.detect is not None:
            reason = f"{reason[:-1]}; {'settled' if settled else 'not settled'}: {ruled_out}."
    return Decision(verdict, delta, ci, float(p), n, float(disp), bool(borderline), reason)


def decide(base: Sequence[float], cand: Sequence[float], policy: Policy = Policy()) -> Decision:
    """Verdict for paired measurements base[i] / cand[i] (same ABBA block) under `policy`."""
    if not isinstance(policy, Policy):
        raise ValueError(f"policy must be a Policy, got {type(policy).__name__}")
    b, c = _as_array(base, "base", 1), _as_array(cand, "cand", 1)
    if b.shape != c.shape:
        raise ValueError(f"base and cand must have the same length, got {b.size} and {c.size}")
    return _decide_batch(b[None, :], c[None, :], policy)[0]


def combine(decisions: Mapping[str, Decision]) -> str:
    """One verdict for a cell from its gated signals' verdicts.

    Any regression fails the cell.  Otherwise a signal that could not be judged (rerun, inconclusive)
    keeps the cell from passing: rerun when the machine was too noisy, inconclusive when pairs were
    missing.  Otherwise improvement if any signal improved, else pass.  No signals: inconclusive.
    """
    verdicts = [d.verdict for d in decisions.values()]
    for verdict in ("regression", "rerun", "inconclusive", "improvement", "pass"):
        if verdict in verdicts:
            return verdict
    return "inconclusive"
