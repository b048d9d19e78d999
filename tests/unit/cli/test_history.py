"""cli.history hands a change over to bisect: runs that carry their commit print the `serverbench bisect`
command from the last run before the change to the first after it; runs without one say how to record it.
And results files keep that commit (records.results)."""

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from serverbench.cli.history import main as history_main
from serverbench.records import results as results_file
from tests.unit.sample_records import record

DOC = Path(__file__).resolve().parents[3] / "docs" / "bisect.md"
DOCS_HISTORY = DOC.with_name("history.md")
RECORDS = Path(__file__).resolve().parents[2] / "integration" / "sessions" / "records"

KEY = "test_throughput::aiohttp/aiohttp/json/c64"
USER_KEY = "test_throughput::waitress-t4/todo.app/list/c64"
DROP = [1000, 1010, 990, 1005, 995, 1002, 998, 1004, 700, 710, 690, 705, 695, 702, 698, 701]


def _history(folder, key, commits=True):
    for i, rps in enumerate(DROP):
        data = {
            "created": f"2026-11-{10 + i:02d}T03:17:00+00:00",
            "machine": {"id": "m1"},
            "results": [record(key, rps)],
        }
        if commits:
            data["commit"] = f"{i:02d}" * 20
        (folder / f"run{i:02d}.json").write_text(json.dumps(data))


def test_a_change_between_runs_with_commits_prints_the_bisect_command(tmp_path, capsys):
    """The drop at run 8 is handed over as --good <run 7's commit> --bad <run 8's commit> on the same cell."""
    _history(tmp_path, KEY)
    assert history_main([str(tmp_path)]) == 1
    said = capsys.readouterr().out
    good, bad = "07" * 6, "08" * 6
    assert (
        f"which commit: serverbench bisect --good {good} --bad {bad} --variant aiohttp --app aiohttp --workload json"
        in said
    )


def test_a_users_cell_is_handed_over_by_its_endpoint(tmp_path, capsys):
    """A cell of a user's app (not a reference app) names its endpoint, as bisect reads it in the project."""
    _history(tmp_path, USER_KEY)
    history_main([str(tmp_path)])
    assert "--variant waitress-t4 --endpoint list" in capsys.readouterr().out


def test_runs_without_commits_say_how_to_record_them(tmp_path, capsys):
    """Files written before commits were kept (or from a changed checkout) cannot name a range."""
    _history(tmp_path, KEY, commits=False)
    history_main([str(tmp_path)])
    assert capsys.readouterr().out.splitlines()[-1] == (
        "which commit: 1 change(s) lie between runs that carry no commit; results files written by pytest in a "
        "clean git checkout carry it, and then name the `serverbench bisect` range"
    )


def test_a_results_file_keeps_its_commit_and_shards_of_one_commit_keep_it_merged(tmp_path):
    """write(commit=...) is read back; merged shards keep a commit they share and drop one they do not."""
    paths = []
    for i, commit in enumerate(["a" * 40, "a" * 40, None]):
        paths.append(tmp_path / f"shard{i}.json")
        results_file.write(paths[-1], {"id": "m1"}, [], [], "0", commit=commit)
    assert results_file.read(paths[0]).commit == "a" * 40
    assert results_file.read(paths[2]).commit is None
    shards = [results_file.read(p) for p in paths]
    results_file.write_merged(tmp_path / "same.json", shards[:2], {"id": "m1"}, "0")
    results_file.write_merged(tmp_path / "mixed.json", shards, {"id": "m1"}, "0")
    assert results_file.read(tmp_path / "same.json").commit == "a" * 40
    assert results_file.read(tmp_path / "mixed.json").commit is None


def test_the_docs_history_example_is_this_output(tmp_path, capsys):
    """docs/bisect.md's history example is what history prints for the synthetic drop above, line for line."""
    _history(tmp_path, KEY)
    history_main([str(tmp_path)])
    printed = capsys.readouterr().out.splitlines()
    text = DOC.read_text()
    shown = [line[4:] for line in text[text.index("## From history") :].splitlines() if line.startswith("    ")][:2]
    assert shown == printed[:2]


# Merged from test_mutation_history.py: The history command's limits, series and exit status (issue 22, mutation
# survivors of cli.history).
def _write(path, created, *rps, machine=None):
    machine = {"id": "m1"} if machine is None else machine
    path.write_text(json.dumps({"created": created, "machine": machine, "results": [record(KEY, v) for v in rps]}))


def _history_of(folder, values):
    for i, v in enumerate(values):
        _write(folder / f"run{i:02d}.json", f"2026-11-{10 + i:02d}T03:17:00+00:00", v)


@pytest.mark.parametrize(
    "argv, flag",
    [
        (["--alpha", "0"], "--alpha 0.0"),
        (["--alpha", "1"], "--alpha 1.0"),
        (["--min-effect", "1"], "--min-effect 1.0"),
        (["--min-effect", "-0.1"], "--min-effect -0.1"),
        (["--min-segment", "1"], "--min-segment 1"),
    ],
)
def test_limits_outside_their_range_are_refused_by_flag(tmp_path, capsys, argv, flag):
    """Each limit just outside its range is refused (exit 2), the error naming the flag and value."""
    _history_of(tmp_path, DROP)
    assert history_main([str(tmp_path), *argv]) == 2
    assert f"error: {flag}: expected" in capsys.readouterr().err


def test_limits_at_the_edge_of_their_range_are_accepted(tmp_path):
    """min_effect 0 and min_segment 2 are accepted: the drop is found (exit 1)."""
    _history_of(tmp_path, DROP)
    assert history_main([str(tmp_path), "--min-effect", "0", "--min-segment", "2"]) == 1


def test_two_bad_limits_are_named_together(tmp_path, capsys):
    """Every bad limit is named in one error, joined by '; '."""
    assert history_main([str(tmp_path), "--alpha", "2", "--min-segment", "0"]) == 2
    assert "--alpha 2.0: expected a number in (0, 1); --min-segment 0: expected" in capsys.readouterr().err


def test_the_limits_reach_the_change_point_search(tmp_path, capsys):
    """--min-effect 0.5 hides a 30% drop (exit 0); --alpha 1e-9 too; the defaults find it (exit 1)."""
    _history_of(tmp_path, DROP)
    assert history_main([str(tmp_path)]) == 1
    assert history_main([str(tmp_path), "--min-effect", "0.5"]) == 0
    assert history_main([str(tmp_path), "--alpha", "1e-9"]) == 0
    assert history_main([str(tmp_path), "--min-segment", "9"]) == 2
    assert "16 runs: a change needs at least 9 runs on each side" in capsys.readouterr().err


def test_exactly_two_segments_of_runs_are_enough(tmp_path, capsys):
    """2 x min_segment runs are judged; one fewer is refused (exit 2)."""
    _history_of(tmp_path, DROP[4:12])
    assert history_main([str(tmp_path)]) != 2
    (tmp_path / "run00.json").unlink()
    assert history_main([str(tmp_path)]) == 2
    assert (
        "7 runs: a change needs at least 4 runs on each side (--min-segment), so at least 8 runs"
        in capsys.readouterr().err
    )


def test_a_flat_history_says_no_shift_and_names_the_latest_run(tmp_path, capsys):
    """No change: 'no sustained shift', with the run count and the latest run's rps, exit 0."""
    _history_of(tmp_path, [1000 + (i % 3) for i in range(8)] + [1234])
    assert history_main([str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"m1  {KEY}  9 runs, latest 1,234 rps: no sustained shift\n"


def test_files_are_ordered_by_creation_not_by_name(tmp_path, capsys):
    """Runs are ordered by their 'created' time, whatever their file names, and files may be named one by one."""
    names = [tmp_path / f"z{15 - i:02d}.json" for i in range(16)]
    for i, (name, v) in enumerate(zip(names, DROP)):
        _write(name, f"2026-11-{10 + i:02d}T03:17:00+00:00", v)
    assert history_main([str(n) for n in names]) == 1
    assert "latest 701 rps" in capsys.readouterr().out


def test_a_missing_path_is_named(tmp_path, capsys):
    """A path that is neither a file nor a folder is an error naming it (exit 2)."""
    assert history_main([str(tmp_path / "nope.json")]) == 2
    assert "nope.json: no such file or folder of --perf-json results" in capsys.readouterr().err


def test_a_run_is_the_median_of_its_replicates_and_failed_trials_are_left_out(tmp_path, capsys):
    """Three replicates give their median; a trial of 0 rps is not a number of that run."""
    for i in range(8):
        _write(tmp_path / f"r{i}.json", f"2026-11-{10 + i:02d}T00:00:00+00:00", 900, 1000 + i, 5000, 0)
    assert history_main([str(tmp_path)]) == 0
    assert "8 runs, latest 1,007 rps" in capsys.readouterr().out


def test_runs_without_a_machine_id_are_one_unknown_machine(tmp_path, capsys):
    """Files whose machine has no id are grouped under 'unknown'."""
    for i in range(8):
        _write(tmp_path / f"r{i}.json", f"2026-11-{10 + i:02d}T00:00:00+00:00", 1000, machine={})
    assert history_main([str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith(f"unknown  {KEY}  8 runs")


def test_every_folder_named_is_read(tmp_path, capsys):
    """Two folders of eight runs each: all sixteen runs are one series (the drop between them is found)."""
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir(), second.mkdir()
    _history_of(first, DROP[:8])
    for i, v in enumerate(DROP[8:]):
        _write(second / f"run{i:02d}.json", f"2026-11-{18 + i:02d}T03:17:00+00:00", v)
    assert history_main([str(first), str(second)]) == 1
    assert "16 runs" in capsys.readouterr().out


def test_each_bad_limit_says_what_it_accepts(tmp_path, capsys):
    """--min-effect 1 and --min-segment 1: each error says the range the flag accepts."""
    _history_of(tmp_path, DROP)
    assert history_main([str(tmp_path), "--min-effect", "1", "--min-segment", "1"]) == 2
    assert capsys.readouterr().err == (
        "error: --min-effect 1.0: expected a number in [0, 1) (0.1 means 10%); "
        "--min-segment 1: expected a whole number of runs >= 2\n"
    )


def test_help_names_the_command_and_says_what_it_does(capsys):
    """`serverbench history --help`: usage under the command's own name, and the module's first line."""
    with pytest.raises(SystemExit):
        history_main(["--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: serverbench history ") and "Trends and change points over stored runs" in out


def test_min_segment_reaches_the_change_point_search(tmp_path, capsys):
    """A drop in the last three of sixteen runs: found with --min-segment 3 (exit 1), not with the default 4."""
    _history_of(tmp_path, [1000.0 + i for i in range(13)] + [700.0, 701, 702])
    assert history_main([str(tmp_path), "--alpha", "0.05"]) == 0
    assert history_main([str(tmp_path), "--alpha", "0.05", "--min-segment", "3"]) == 1
    assert "2026-11-23T03:17:00+00:00: 1,006 -> 701 rps (-30.3%" in capsys.readouterr().out


def test_two_change_points_are_listed_in_one_line(tmp_path, capsys):
    """A dip that recovered: both change points on the cell's line, joined by '; '."""
    dip = [1000 + i % 5 for i in range(10)] + [700 + i % 5 for i in range(10)] + [1000 + i % 5 for i in range(10)]
    for i, v in enumerate(dip):
        _write(tmp_path / f"run{i:02d}.json", f"2026-11-10T03:17:{i:02d}+00:00", v)
    assert history_main([str(tmp_path)]) == 1
    line = capsys.readouterr().out
    assert line.count(" rps (") == 2 and "%, p=" in line and "); 2026-11-" in line


def test_a_drop_in_any_cell_fails_even_when_a_later_cell_is_flat(tmp_path, capsys):
    """Two cells: the first (in sorted order) drops, the second is flat: exit 1."""
    flat = "test_throughput::bjoern/flask/json/c64"
    for i, v in enumerate(DROP):
        (tmp_path / f"run{i:02d}.json").write_text(
            json.dumps(
                {
                    "created": f"2026-11-{10 + i:02d}T03:17:00+00:00",
                    "machine": {"id": "m1"},
                    "results": [record(KEY, v), record(flat, 1000 + i % 3)],
                }
            )
        )
    assert history_main([str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert KEY in out[0] and "-30" in out[0] and flat in out[1] and "no sustained shift" in out[1]


def test_a_change_of_exactly_nothing_is_not_a_drop(tmp_path, capsys):
    """With --min-effect 0 and a loose alpha a split of equal medians (6.5 -> 6.5) is a change point, but no
    drop: exit 0."""
    _history_of(tmp_path, [10.0, 11.0, 3.0, 1.0, 6.0, 10.0, 7.0, 1.0])
    assert history_main([str(tmp_path), "--min-effect", "0", "--alpha", "0.99"]) == 0
    assert "6 -> 6 rps (+0.0%" in capsys.readouterr().out


def test_the_documented_line_reads_a_folder_of_stored_runs(tmp_path):
    """docs/history.md's `serverbench history FOLDER --min-effect 0.10` on a folder of real --perf-json files (the
    committed short sessions of tests/integration/sessions/records/, each copied as four runs a day apart, enough
    for a series): exit 0 or 1 (a drop found), one line per machine and cell, nothing on stderr."""
    line = re.search(r"^serverbench history FOLDER .*$", DOCS_HISTORY.read_text(), re.M)
    assert line is not None, "docs/history.md no longer shows the line"
    folder = tmp_path / "FOLDER"
    folder.mkdir()
    for n, path in enumerate(sorted(RECORDS.glob("*.json"))):
        data = json.loads(path.read_text())
        for day in range(4):
            data["created"] = f"2026-11-{10 + day + 4 * n:02d}T00:00:00+00:00"
            (folder / f"{path.stem}-{day}.json").write_text(json.dumps(data))
    assert all(results_file.read(p) for p in folder.iterdir())
    args = shlex.split(line.group(0).split("#")[0])
    serverbench = Path(sys.executable).parent / "serverbench"
    done = subprocess.run([str(serverbench), *args[1:]], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode in (0, 1) and done.stderr == "", done.stderr
    rows = done.stdout.splitlines()
    assert rows and all(re.search(r"\d+ runs, latest [\d,]+ rps: ", row) for row in rows), done.stdout


# Issue 35: which runs the bisect range is taken from, and the count of changes that carry no commit.
def _run_file(path, created, results, machine=None, commit=None):
    data = {"created": created, "machine": {"id": "m1"} if machine is None else machine, "results": results}
    if commit is not None:
        data["commit"] = commit
    path.write_text(json.dumps(data))


def test_the_bisect_range_comes_from_this_machines_runs_that_measured_the_cell(tmp_path, capsys):
    """Runs of another machine and runs whose trials of the cell all failed (0 rps) are no end of the range:
    the drop at the ninth counted run is handed over between the eighth's and the ninth's commits."""
    _history(tmp_path, KEY)
    _run_file(tmp_path / "m2.json", "2026-11-01T00:00:00+00:00", [record(KEY, 1000)], {"id": "m2"}, "ee" * 20)
    failed = [record(KEY, 0), record("test_throughput::bjoern/flask/json/c64", 1000)]
    _run_file(tmp_path / "failed.json", "2026-11-02T00:00:00+00:00", failed, commit="ff" * 20)
    assert history_main([str(tmp_path)]) == 1
    assert f"serverbench bisect --good {'07' * 6} --bad {'08' * 6} --variant aiohttp" in capsys.readouterr().out


def test_runs_without_a_machine_id_name_their_bisect_range(tmp_path, capsys):
    """Runs whose machine has no id are the series of machine 'unknown', and its change is handed over too."""
    for i, rps in enumerate(DROP):
        _run_file(
            tmp_path / f"run{i:02d}.json",
            f"2026-11-{10 + i:02d}T03:17:00+00:00",
            [record(KEY, rps)],
            {},
            f"{i:02d}" * 20,
        )
    assert history_main([str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"unknown  {KEY}  16 runs") and f"--good {'07' * 6} --bad {'08' * 6}" in out


def test_a_change_next_to_a_run_without_a_commit_is_not_handed_over(tmp_path, capsys):
    """A range needs both ends' commits: with only the run after the drop carrying one, no bisect command is
    printed and the change is counted among those that carry no commit."""
    for i, rps in enumerate(DROP):
        commit = None if i == 7 else f"{i:02d}" * 20
        _run_file(
            tmp_path / f"run{i:02d}.json", f"2026-11-{10 + i:02d}T03:17:00+00:00", [record(KEY, rps)], commit=commit
        )
    assert history_main([str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "which commit: serverbench bisect" not in out
    assert out.splitlines()[-1].startswith("which commit: 1 change(s) lie between runs that carry no commit")


def test_changes_without_commits_are_counted_over_every_cell(tmp_path, capsys):
    """Two cells that each drop between runs without commits: the closing line counts both changes."""
    other = "test_throughput::bjoern/flask/json/c64"
    for i, rps in enumerate(DROP):
        _run_file(
            tmp_path / f"run{i:02d}.json",
            f"2026-11-{10 + i:02d}T03:17:00+00:00",
            [record(KEY, rps), record(other, rps)],
        )
    assert history_main([str(tmp_path)]) == 1
    assert capsys.readouterr().out.splitlines()[-1].startswith("which commit: 2 change(s) lie between runs")
