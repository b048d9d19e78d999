"""The nearest rank of a percentile (drivers.rank), the rank oha's window and locust's buckets take their values at."""

from serverbench.drivers.rank import nearest_rank


def test_the_rank_is_q_percent_of_n_rounded_up():
    """p50 of 5 is rank 3 (2.5 up, not to the even 2), p90 of 5 rank 5, p50 of 2 rank 1 and p99 of 2 rank 2."""
    assert [nearest_rank(50, 5), nearest_rank(90, 5), nearest_rank(50, 2), nearest_rank(99, 2)] == [3, 5, 1, 2]


def test_a_whole_rank_is_not_pushed_up_by_floating_point():
    """99.9% of 1,000 is rank 999 and of 328,000 rank 327,672 exactly; 99.9% of 1,999 (1,997.001) is rank 1,998."""
    assert nearest_rank(99.9, 1000) == 999
    assert nearest_rank(99.9, 328_000) == 327_672
    assert nearest_rank(99.9, 1999) == 1998


def test_the_rank_is_at_least_the_first_and_at_most_the_last():
    """Any q of no answers, and p0 of ten, is rank 1 (never 0); p100 of ten is rank 10."""
    assert (nearest_rank(99.9, 0), nearest_rank(0, 10), nearest_rank(100, 10)) == (1, 1, 10)
