"""Writing and locking the JSON files serverbench keeps (issue 22, mutation survivors of records.jsonfile)."""

import fcntl
import json
import os

import pytest

from serverbench.records import jsonfile


def test_a_written_file_is_sorted_indented_json_ending_in_a_newline(tmp_path):
    """The file holds the value as JSON with sorted keys, two-space indent and a final newline, nothing else."""
    path = tmp_path / "deep" / "er" / "f.json"
    jsonfile.write_atomic(path, {"b": 1, "a": [1, 2]})
    assert path.read_text() == '{\n  "a": [\n    1,\n    2\n  ],\n  "b": 1\n}\n'
    jsonfile.write_atomic(path, {"c": 3})  # the folder exists now: written again over the file
    assert jsonfile.read(path) == {"c": 3} and os.listdir(path.parent) == ["f.json"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path):
    """A value that cannot be written raises; the old file is intact and no temporary file is left."""
    path = tmp_path / "f.json"
    jsonfile.write_atomic(path, {"old": True})
    with pytest.raises(TypeError):
        jsonfile.write_atomic(path, {"new": object()})
    assert json.loads(path.read_text()) == {"old": True} and os.listdir(tmp_path) == ["f.json"]


def test_locked_holds_the_folders_lock_until_the_block_ends(tmp_path):
    """Inside the block another holder cannot take the folder's lock; after it, it can."""
    path = tmp_path / "new" / "f.json"

    def try_lock():
        fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False
        finally:
            os.close(fd)

    with jsonfile.locked(path):
        assert try_lock() is False
    assert try_lock() is True
    with jsonfile.locked(path):  # the folder exists now
        assert try_lock() is False


def test_read_turns_too_deep_and_too_long_into_a_decode_error(tmp_path):
    """JSON nested deeper than Python recurses, or an integer too long to convert, reads as a JSONDecodeError."""
    deep, long = tmp_path / "deep.json", tmp_path / "long.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    long.write_text("1" * 50_000)
    for path, words in ((deep, "nested too deeply"), (long, "digits")):
        with pytest.raises(json.JSONDecodeError, match=words):
            jsonfile.read(path)
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(json.JSONDecodeError, match="Expecting property name"):
        jsonfile.read(tmp_path / "bad.json")


def test_a_write_goes_through_a_hidden_temporary_file_in_the_same_folder(tmp_path, monkeypatch):
    """The temporary file is ``.<name>.<random>.tmp`` beside the file (a rename within one file system is atomic),
    and holds the whole JSON when it is renamed over the file."""
    seen = []
    replace = os.replace

    def spy(src, dst):
        with open(src) as f:
            seen.append((os.path.dirname(src), os.path.basename(src), f.read(), dst))
        replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    path = tmp_path / "f.json"
    jsonfile.write_atomic(path, [1])
    ((folder, name, text, dst),) = seen
    assert folder == str(tmp_path) and name.startswith(".f.json.") and name.endswith(".tmp")
    assert text == "[\n  1\n]\n" and dst == path


def test_read_errors_keep_their_message_and_point_at_the_start(tmp_path):
    """Too deep or too long a number: a JSONDecodeError whose message says which, at position 0 of the text."""
    deep, long = tmp_path / "deep.json", tmp_path / "long.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    long.write_text("1" * 50_000)
    with pytest.raises(json.JSONDecodeError) as info:
        jsonfile.read(deep)
    assert (info.value.msg, info.value.pos, info.value.doc) == ("nested too deeply", 0, deep.read_text())
    with pytest.raises(json.JSONDecodeError) as info:
        jsonfile.read(long)
    assert info.value.msg.startswith("Exceeds the limit") and info.value.pos == 0 and info.value.doc == "1" * 50_000
