import json

import numpy as np
import pytest

from serverbench.cli.history import main as history_main
from serverbench.judge.changepoints import change_points
from tests.unit.sample_records import record

RNG = np.random.default_rng(7)
# This machine's run-to-run spread of one cell across a session: about 6.5% (median move).
FLAT = 1000 * np.exp(RNG.normal(0, 0.065, 30))


def test_flat_noisy_history_has_no_change_point():
    """30 runs of the same code with 6.5% noise: nothing is reported."""
    assert change_points(FLAT) == []


def test_sustained_20_percent_drop_is_found_where_it_happened():
    """A drop to 80% from run 15 on is found at run 15 (± 1) with the change it made."""
    found = change_points(np.concatenate([FLAT[:15], FLAT[15:] * 0.8]))
    assert len(found) == 1 and abs(found[0].index - 15) <= 1
    assert -0.27 < found[0].change < -0.13 and found[0].p < 0.01


def test_one_wild_run_is_not_a_change():
    """A single run at 30% of normal (a neighbour stole the CPU) does not make a change point."""
    spike = FLAT.copy()
    spike[10] = 300.0
    assert change_points(spike) == []


def test_two_steps_are_both_found():
    """Down by 25% at run 10, back up at run 20 (a regression later fixed): two change points, in order,
    each within two runs of where it happened, the first down and the second up."""
    x = FLAT.copy()
    x[10:20] *= 0.75
    found = change_points(x)
    assert len(found) == 2 and abs(found[0].index - 10) <= 2 and abs(found[1].index - 20) <= 2
    assert found[0].change < -0.15 and found[1].change > 0.15


def test_small_shift_below_min_effect_is_ignored():
    """A 3% shift is below the default 10% minimum effect: history cannot resolve it, the A/B gate can."""
    assert change_points(np.concatenate([FLAT[:15], FLAT[15:] * 0.97])) == []


def test_bad_series_is_refused():
    """Non-positive or non-finite values and nonsense parameters are clear errors."""
    with pytest.raises(ValueError, match="finite numbers > 0"):
        change_points([1.0, 0.0, 2.0])
    with pytest.raises(ValueError, match="alpha"):
        change_points([1.0] * 10, alpha=2)


def _write(path, created, rps, key="test_throughput::aiohttp/aiohttp/json/c64"):
    path.write_text(json.dumps({"created": created, "machine": {"id": "m1"}, "results": [record(key, rps)]}))


def test_history_command_reports_a_drop_and_exits_1(tmp_path, capsys):
    """Sixteen stored runs, the last eight 30% slower: the drop is printed with its date, exit status 1."""
    for i, v in enumerate([1000, 1010, 990, 1005, 995, 1002, 998, 1004, 700, 710, 690, 705, 695, 702, 698, 701]):
        _write(tmp_path / f"run{i:02d}.json", f"2026-11-{10 + i:02d}T03:17:00+00:00", v)
    assert history_main([str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "m1  test_throughput::aiohttp/aiohttp/json/c64  16 runs" in out
    assert "2026-11-18T03:17:00+00:00: 1,001 -> 700 rps (-30.0%" in out


def test_history_command_refuses_a_corrupt_file(tmp_path, capsys):
    """A file that is not a results file is named in the error (exit 2); nothing is judged."""
    _write(tmp_path / "a.json", "2026-11-10T00:00:00+00:00", 1000)
    (tmp_path / "b.json").write_text("{not json")
    assert history_main([str(tmp_path)]) == 2
    assert "b.json: not a readable serverbench results file" in capsys.readouterr().err


def _steady(n=16, level=1000.0):
    """A history with 0.2% noise: any split with a real shift is significant; only min_effect can stop it."""
    return np.array([level * (1 + 0.001 * (i % 5 - 2)) for i in range(n)])


def test_min_effect_is_the_limit_of_a_significant_step():
    """A clean 9% step is below the default 10% min_effect (none); an 11% step is found; min_effect=0.05 finds 9%."""
    step = lambda f: np.concatenate([_steady(), _steady() * f])  # noqa: E731
    assert change_points(step(0.91)) == []
    found = change_points(step(0.89))
    assert len(found) == 1 and found[0].index == 16
    assert len(change_points(step(0.91), min_effect=0.05)) == 1
    assert len(change_points(step(1.11))) == 1 and change_points(step(1.09)) == []


def test_min_effect_is_the_limit_of_a_significant_dip():
    """A clean dip that recovered: 9% is below min_effect (none); 11% gives two change points."""
    dip = lambda f: np.concatenate([_steady(10), _steady(10) * f, _steady(10)])  # noqa: E731
    assert change_points(dip(0.91)) == []
    found = change_points(dip(0.89))
    assert len(found) == 2 and found[0].index == 10 and abs(found[1].index - 20) <= 1


def test_alpha_is_the_limit_of_a_large_step():
    """A 30% step over 4 + 4 runs is significant at alpha 0.05 but not at 0.001 (corrected p = 0.029)."""
    x = np.concatenate([_steady(4), _steady(4) * 0.7])
    assert [c.index for c in change_points(x, alpha=0.05)] == [4]
    assert change_points(x, alpha=0.001) == []


def test_history_command_reports_a_rise_and_exits_0(tmp_path, capsys):
    """Negative case: the last eight of sixteen runs 30% faster are printed as a change, exit status 0."""
    for i, v in enumerate(
        [1000, 1010, 990, 1005, 995, 1002, 998, 1004, 1300, 1310, 1290, 1305, 1295, 1302, 1298, 1301]
    ):
        _write(tmp_path / f"run{i:02d}.json", f"2026-11-{10 + i:02d}T03:17:00+00:00", v)
    assert history_main([str(tmp_path)]) == 0
    assert "2026-11-18T03:17:00+00:00: 1,001 -> 1,300 rps (+29.9%" in capsys.readouterr().out


def test_a_step_of_exactly_min_effect_is_found():
    """Medians 100 then exactly 125 with min_effect 0.25: the step is found (the limit is 'at least')."""
    before, after = [97.0, 98, 99, 100, 100, 101, 102, 103], [122.0, 123, 124, 125, 125, 126, 127, 128]
    [found] = change_points(before + after, min_effect=0.25)
    assert (found.index, found.before, found.after) == (8, 100.0, 125.0)


def test_a_corrected_p_exactly_at_alpha_is_not_a_change():
    """4 + 4 runs wholly apart (one split tried, p = 2/70): alpha equal to that p finds nothing, just above finds it."""
    from scipy import stats

    x = [10.0, 11, 12, 13, 20, 21, 22, 23]
    p = stats.mannwhitneyu(x[:4], x[4:], alternative="two-sided").pvalue
    assert change_points(x, alpha=p) == []
    assert [c.index for c in change_points(x, alpha=float(np.nextafter(p, 1)))] == [4]


def test_a_step_between_values_one_apart_is_searched():
    """Six runs at 1 rps then six at 2 (the series' range is exactly 1): the doubling is found."""
    assert [(c.index, c.before, c.after) for c in change_points([1.0] * 6 + [2.0] * 6)] == [(6, 1.0, 2.0)]


def test_both_halves_of_a_split_are_searched_again():
    """Four levels (100, 80, 40, 32; 8 runs each): the largest step (-60%) is found first, then the -20% step in each
    half, all three reported in order."""
    x = np.concatenate([_steady(8, 100), _steady(8, 80), _steady(8, 40), _steady(8, 32)])
    assert [(c.index, round(c.change, 3)) for c in change_points(x)] == [(8, -0.2), (16, -0.6), (24, -0.2)]


def test_a_dip_with_exactly_min_segment_runs_around_it_is_found_where_it_starts():
    """Two runs before and two after a dip to half (four outside it, the minimum segment): the drop at run 2 is
    found, for a 12-run dip at the default alpha and an 8-run dip at alpha 0.5."""
    for dip, alpha in ((12, 0.01), (8, 0.5)):
        x = [100.0, 101.0] + [50.0 + 0.1 * i for i in range(dip)] + [102.0, 103.0]
        found = change_points(x, alpha=alpha)
        assert found[0].index == 2 and found[0].change == pytest.approx(-0.5, abs=0.01), (dip, found)


def test_a_drifting_dip_is_reported_where_its_level_recovers():
    """2 runs at 100, 12 drifting from 50.0 to 51.1, 2 back: the drop at run 2 and the recovery at run 14 (+103%), not
    a +1.4% "recovery" at run 10 inside the dip (its last runs rank above its first, so the interval of smallest p
    ends there)."""
    x = [100.0, 101.0] + [50.0 + 0.1 * i for i in range(12)] + [102.0, 103.0]
    assert [(c.index, round(c.change, 2)) for c in change_points(x)] == [(2, -0.5), (14, 1.03)]


def test_no_change_smaller_than_min_effect_is_reported_at_a_dips_end():
    """The 8-run drifting dip at alpha 0.5: the drop at run 2 and the rise at run 8; the dip's other end, inside the
    dip (+0.6%), is not a change."""
    x = [100.0, 101.0] + [50.0 + 0.1 * i for i in range(8)] + [102.0, 103.0]
    assert [(c.index, round(c.change, 2)) for c in change_points(x, alpha=0.5)] == [(2, -0.5), (8, 0.52)]


def test_a_dip_after_a_single_run_is_found():
    """1 run at 100, 12 drifting from 50.0, 3 back: the dip starts at the second run (one run before it and three
    after are its four outside runs)."""
    x = [100.0] + [50.0 + 0.1 * i for i in range(12)] + [101.0, 102.0, 103.0]
    assert [(c.index, round(c.change, 3)) for c in change_points(x)] == [(1, -0.495), (13, 1.018)]


def test_a_dip_in_the_later_piece_of_a_split_counts_its_outside_runs_from_that_piece():
    """8 runs at 200, then the drifting dip (2 at 100, 12 from 50.0, 2 back): the step at run 8, then the dip in the
    piece after it, with the four runs around it in that piece as its outside runs."""
    x = [200.0] * 8 + [100.0, 101.0] + [50.0 + 0.1 * i for i in range(12)] + [102.0, 103.0]
    assert [(c.index, round(c.change, 3)) for c in change_points(x)] == [(8, -0.746), (10, -0.497), (22, 1.028)]


def test_a_dip_is_judged_against_the_corrected_p_of_every_interval_tried():
    """8 runs, 8 runs 30% lower, 8 runs back: wholly apart, but after correcting for every interval tried the dip
    is not significant at 1%: nothing is reported."""
    high, low = [1000, 1010, 990, 1005, 995, 1002, 998, 1004], [700, 710, 690, 705, 695, 702, 698, 701]
    assert change_points(high + low + high) == []


def test_a_step_inside_a_dip_is_found_by_searching_the_dip_again():
    """6 runs, 8 at -30%, 8 at -50%, 6 back: the dip's two ends share the interval's corrected p, and the step
    inside it is found when the dip is searched again."""
    x = np.concatenate([_steady(6), _steady(8, 700), _steady(8, 500), _steady(6)])
    found = change_points(x)
    assert [(c.index, round(c.change, 3)) for c in found] == [(6, -0.4), (14, -0.286), (22, 0.666)]
    assert found[0].p == found[2].p < 0.01 and 0 < found[1].p < 0.01


def test_a_dip_whose_corrected_p_is_exactly_alpha_is_not_a_change():
    """The same dip with alpha set to its interval's corrected p: nothing; alpha just above it: both ends."""
    x = np.concatenate([_steady(6), _steady(8, 700), _steady(8, 500), _steady(6)])
    p = change_points(x)[0].p
    assert change_points(x, alpha=p) == []
    assert [c.index for c in change_points(x, alpha=float(np.nextafter(p, 1)))] == [6, 22]


def test_a_long_dip_is_measured_against_the_runs_outside_it():
    """4 runs, 16 runs 30% lower, 4 runs back, min_effect 25%: the dip's level is compared with the 8 runs
    outside it (not with a median that includes the dip), so both ends are found."""
    x = np.concatenate([_steady(4), _steady(16, 700), _steady(4)])
    assert [(c.index, round(c.change, 2)) for c in change_points(x, alpha=0.05, min_effect=0.25)] == [
        (4, -0.3),
        (20, 0.43),
    ]


@pytest.mark.parametrize(
    "kwargs", [{"alpha": 0.0}, {"alpha": 1.0}, {"min_effect": 1.0}, {"min_segment": 2.5}, {"min_segment": 1}]
)
def test_each_limit_just_outside_its_range_is_refused(kwargs):
    """alpha 0 or 1, min_effect 1, a min_segment that is not a whole number >= 2: a ValueError naming the limits."""
    with pytest.raises(ValueError, match="alpha=.* must be in \\(0, 1\\), min_effect=.* min_segment="):
        change_points(list(FLAT), **kwargs)


def test_a_series_of_text_a_table_or_rates_below_one_are_judged_as_they_should():
    """Text and a 2-D table are refused as a series; rates between 0 and 1 rps are valid numbers."""
    for bad in (["fast"] * 8, [[1.0, 2.0]] * 8):
        with pytest.raises(ValueError):
            change_points(bad)
    assert change_points([0.5] * 8) == []
