"""The A/B decision's policy and samples at the edges of what they accept (judge.decision): the last value inside
each range is accepted, numpy's numbers count as numbers, and a refused sample names where it is."""

import math
import re

import numpy as np
import pytest

from serverbench.judge.decision import Policy, decide


@pytest.mark.parametrize(
    "field, value",
    [
        ("alpha", 1e-9),
        ("alpha", 0.999),
        ("alpha", np.float64(0.05)),
        ("alpha", 1),
        ("cells", 1),
        ("cells", np.int64(3)),
        ("min_effect", 0.0),
        ("min_effect", 0.999),
        ("min_effect", np.float32(0.05)),
        ("min_pairs", 2),
        ("min_pairs", np.int32(4)),
        ("max_dispersion", 1e-9),
        ("max_dispersion", math.inf),
        ("max_dispersion", 2),
        ("higher_is_better", False),
        ("higher_is_better", np.bool_(True)),
    ],
)
def test_each_policy_field_accepts_the_edge_of_its_range(field, value):
    """The last value inside each field's range, and numpy's numbers, make a policy with that value."""
    if (field, value) == ("alpha", 1):
        with pytest.raises(ValueError, match=r"Policy\.alpha=1 is invalid"):
            Policy(alpha=1)
        return
    assert getattr(Policy(**{field: value}), field) == value


@pytest.mark.parametrize(
    "field, value",
    [
        ("alpha", True),
        ("min_effect", False),
        ("max_dispersion", True),
        ("min_pairs", True),
        ("cells", np.float64(2.0)),
        ("min_pairs", "5"),
    ],
)
def test_a_truth_value_or_a_float_count_is_not_a_number_for_the_policy(field, value):
    """True/False are refused where a number is wanted, a float where a whole count is, and text everywhere."""
    with pytest.raises(ValueError, match=rf"Policy\.{field}={re.escape(repr(value))} is invalid; accepted: "):
        Policy(**{field: value})


def test_the_per_cell_alpha_is_alpha_over_the_cells():
    """Bonferroni: alpha 0.05 over 4 cells is 0.0125 per cell."""
    assert Policy(alpha=0.05, cells=4).cell_alpha == 0.0125


# The value is shown as a plain number (not numpy 2's np.float64(0.0)).
@pytest.mark.parametrize(
    "base, cand, pattern",
    [
        (
            [1.0, 2.0, 3.0],
            [1.0, 2.0, 0.0],
            r"cand must be > 0 \(ratios of positive measurements\); got 0\.0 at flat index 2",
        ),
        (
            [1.0, -2.0, 3.0],
            [1.0, 2.0, 3.0],
            r"base must be > 0 \(ratios of positive measurements\); got -2\.0 at flat index 1",
        ),
        ([1.0, 2.0, math.nan], [1.0, 2.0, 3.0], r"base contains a non-finite value nan at flat index 2"),
        ([1.0, 2.0], [1.0, 2.0, 3.0], r"base and cand must have the same length, got 2 and 3"),
    ],
)
def test_a_refused_sample_names_the_side_the_value_and_its_place(base, cand, pattern):
    """A bad value is named with its side (base or cand), the value and its index; mismatched lengths with both."""
    with pytest.raises(ValueError, match=pattern):
        decide(base, cand)


def test_a_policy_must_be_a_policy():
    """Passing anything but a Policy is a ValueError naming the type given."""
    with pytest.raises(ValueError, match="policy must be a Policy, got dict"):
        decide([1.0] * 8, [1.0] * 8, {"alpha": 0.05})


@pytest.mark.parametrize(
    "field, value, accepted",
    [
        ("alpha", 0.0, "a number in the open interval (0, 1)"),
        ("cells", 0, "an integer >= 1"),
        ("min_effect", 1.0, "a number in [0, 1)"),
        ("min_pairs", 1, "an integer >= 2"),
        ("max_dispersion", 0.0, "a number > 0 (inf disables the check)"),
        ("higher_is_better", "yes", "True or False"),
    ],
)
def test_a_refused_policy_field_says_what_it_accepts(field, value, accepted):
    """The error names the field, the value given and, in words, what the field accepts."""
    with pytest.raises(ValueError) as refused:
        Policy(**{field: value})
    assert str(refused.value) == f"Policy.{field}={value!r} is invalid; accepted: {accepted}"


def test_one_pair_is_inconclusive_but_states_its_change():
    """A single pair (100 -> 90 rps) cannot be judged, yet the decision states its -10% change and no spread."""
    one = decide([100.0], [90.0])
    assert one.verdict == "inconclusive" and one.n == 1
    assert one.delta == pytest.approx(-0.10) and one.dispersion == 0.0


def test_two_pairs_are_inconclusive_but_carry_an_interval_and_a_p():
    """Two pairs are below the Wilcoxon floor (inconclusive), but their interval and p(worse) are computed."""
    two = decide([100.0, 100.0], [90.0, 92.0], Policy(min_pairs=2))
    assert two.verdict == "inconclusive" and "Wilcoxon floor" in two.reason
    assert all(math.isfinite(end) for end in two.ci) and two.ci[0] < two.delta < two.ci[1]
    assert 0.0 < two.p <= 1.0
