"""Replicates are judged by their median-rps run (issue 22), not the fastest or the slowest."""

from serverbench.records.schema import replicated


def test_the_median_replicate_is_judged(make_result):
    """Three runs at 900, 1100 and 1000 rps: the 1000-rps run is the result, carrying all three."""
    runs = [make_result(rps=900.0), make_result(rps=1100.0), make_result(rps=1000.0)]
    chosen = replicated(runs)
    assert chosen.rps == 1000.0
    reps = chosen.extra["replicates"]
    assert reps["n"] == 3 and reps["rps"] == [900.0, 1100.0, 1000.0] and reps["rps_median"] == 1000.0
    assert reps["dispersion"] == 0.1  # MAD 100 / median 1000


def test_an_even_count_judges_the_lower_middle_run(make_result):
    """Four runs: the slower of the two middle runs is judged (a real run, never the faster one)."""
    runs = [make_result(rps=v) for v in (1200.0, 900.0, 1100.0, 1000.0)]
    chosen = replicated(runs)
    assert chosen.rps == 1000.0 and chosen.extra["replicates"]["rps_median"] == 1050.0


def test_one_run_is_returned_unchanged(make_result):
    """Negative case: a single run is not marked as replicated."""
    run = make_result(rps=1000.0)
    assert replicated([run]) is run and "replicates" not in run.extra
