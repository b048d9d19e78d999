from serverbench.abtest import ABRun
from serverbench.decision import decide
from serverbench.gate import exit_status, markdown


def _run(base, cand, errors=0.0):
    d = decide(base, cand)
    return ABRun("simultaneous", tuple(base), tuple(cand), (), 0, False, d, d,
                 {"base": 0.0, "candidate": errors}, {"base": 50.0, "candidate": 51.0}, 42.0)


SAME = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.1]


def test_exit_status_by_verdict():
    """pass → 0, regression → 1, too few pairs → 3 (never 0), errors over the limit → 1."""
    assert exit_status(_run(SAME, SAME), 0.01) == 0
    assert exit_status(_run(SAME, [v * 0.8 for v in SAME]), 0.01) == 1
    assert exit_status(_run(SAME[:3], SAME[:3]), 0.01) == 3
    assert exit_status(_run(SAME, SAME, errors=0.05), 0.01) == 1


def test_markdown_step_summary_has_delta_interval_p_and_verdict():
    """The CI step summary shows Δ, its interval, p, n, dispersion and the verdict per signal."""
    text = markdown("aiohttp json c32", _run(SAME, [v * 0.8 for v in SAME]), 0.01)
    assert "| throughput (rps) | -20.0% | [" in text
    assert "**regression**" in text and "| 8 |" in text
    assert "error rate: base 0.00%, candidate 0.00% (limit 1.00%)" in text
    assert "peak RSS: base 50.0 MB, candidate 51.0 MB (+2.0%)" in text
