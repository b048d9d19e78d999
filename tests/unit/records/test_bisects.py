"""Bisection files (records.bisects): written and read back, each bad file named with the fix."""

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
