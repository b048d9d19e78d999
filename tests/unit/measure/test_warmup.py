"""When warm-up has settled: the rule that lets PyPy's JIT warm up before the measured window."""

from serverbench.measure.trial import settled


def test_one_round_is_never_settled():
    """A single round has nothing to compare with."""
    assert not settled([1000.0], 0.05)


def test_rising_rps_is_not_settled_until_two_rounds_agree():
    """A JIT that is still speeding up (+40%, +15%) keeps warming; +3% is settled at 5%."""
    rounds = [1000.0, 1400.0, 1610.0, 1658.0]
    assert [settled(rounds[:i], 0.05) for i in range(1, 5)] == [False, False, False, True]


def test_a_drop_counts_like_a_rise():
    """A 10% fall between rounds is not settled at 5%."""
    assert not settled([1000.0, 900.0], 0.05)
    assert settled([1000.0, 960.0], 0.05)
