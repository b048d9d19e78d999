"""Bisection files (records.bisects): written and read back, each bad file named with the fix."""

import json
from types import MappingProxyType

import pytest

from serverbench.errors import ConfigError
from serverbench.records import bisects
from tests.unit.sample_records import bisection


def test_a_bisection_file_round_trips(tmp_path):
    """write then read gives the record back."""
    record = bisection([100.0, 103.0])
    bisects.write(tmp_path / "b.json", record)
    assert bisects.read(tmp_path / "b.json") == record


@pytest.mark.parametrize(
    "content, said",
    [
        ("not json", "not a readable bisection file"),
        ('{"kind": "ab"}', 'not a bisection file (no "kind": "bisect")'),
        ('{"kind": "bisect", "schema": 9}', "schema 9, this serverbench reads 1; bisect again with this version"),
        ('{"kind": "bisect", "schema": 1, "commits": []}', "a bisection file without steps, variant"),
    ],
)
def test_a_bad_bisection_file_is_named_with_the_fix(tmp_path, content, said):
    """Each unreadable file names itself and what to pass instead."""
    path = tmp_path / "b.json"
    path.write_text(content)
    with pytest.raises(ConfigError, match=str(path)) as raised:
        bisects.read(path)
    assert said in str(raised.value)


def test_a_bisection_record_given_as_any_mapping_is_written(tmp_path):
    """A read-only mapping (not a dict) of the record writes and reads back as the record."""
    record = bisection([100.0, 103.0])
    bisects.write(tmp_path / "b.json", MappingProxyType(record))
    assert bisects.read(tmp_path / "b.json") == record


@pytest.mark.parametrize("content", ["[1]", "[]", '"bisect"', "3"])
def test_json_that_is_not_an_object_is_not_a_bisection_file(tmp_path, content):
    """A JSON list, string or number is refused as 'not a bisection file', never read as one (or a crash)."""
    path = tmp_path / "b.json"
    path.write_text(content)
    with pytest.raises(ConfigError, match='not a bisection file \\(no "kind": "bisect"\\)'):
        bisects.read(path)


def test_a_file_that_is_not_text_or_a_folder_is_not_readable(tmp_path):
    """Bytes that are not UTF-8, and a folder in the file's place, are 'not a readable bisection file'."""
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe{")
    (tmp_path / "folder.json").mkdir()
    for name in ("bin.json", "folder.json"):
        with pytest.raises(ConfigError, match="not a readable bisection file.*pass a `serverbench bisect --json` file"):
            bisects.read(tmp_path / name)


@pytest.mark.parametrize("field", ["commits", "steps", "variant", "app", "workload", "threshold", "repo"])
def test_a_bisection_file_without_any_one_field_is_refused_naming_it(tmp_path, field):
    """Each field --confirm reads is required: a file without just that one is refused, naming it."""
    record = dict(bisection([100.0, 103.0]))
    del record[field]
    path = tmp_path / "b.json"
    path.write_text(json.dumps(record))
    with pytest.raises(ConfigError, match=f"a bisection file without {field}; bisect again"):
        bisects.read(path)
