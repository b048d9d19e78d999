"""cli.history hands a change over to bisect: runs that carry their commit print the `serverbench bisect`
command from the last run before the change to the first after it; runs without one say how to record it.
And results files keep that commit (records.results)."""

import json
from pathlib import Path

from serverbench.cli.history import main as history_main
from serverbench.records import results as results_file
from tests.unit.sample_records import record

DOC = Path(__file__).resolve().parents[3] / "docs" / "bisect.md"

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
