"""measure.host.gil: the tree's GIL from what the probe in each server process wrote, and the probe's variables."""

from __future__ import annotations

import json
import os

from serverbench.measure.host.gil import PROBE_DIR, VAR, probe_env, read


def test_the_tree_has_the_gil_on_when_any_process_has_it_and_names_every_module(tmp_path):
    """Two workers, one of which imported a module that turned it on: on, that module, two processes."""
    (tmp_path / "101").write_text(json.dumps({"enabled": False, "enabled_by": []}))
    (tmp_path / "102").write_text(json.dumps({"enabled": True, "enabled_by": ["httptools.parser.parser"]}))
    (tmp_path / "103.tmp").write_text("{half")
    assert read(tmp_path) == {"enabled": True, "enabled_by": ["httptools.parser.parser"], "processes": 2}


def test_no_folder_or_no_file_is_not_probed(tmp_path):
    """A GIL build's server (no folder) or a probe that never ran (no file): None, not 'off'."""
    assert read(None) is None and read(tmp_path) is None
    (tmp_path / "7").write_text("not json")
    assert read(tmp_path) is None


def test_the_probe_goes_first_on_the_path_with_a_folder_of_its_own():
    """PYTHONPATH starts with the probe's folder (its sitecustomize); the folder is made when not given."""
    env = probe_env("/apps")
    assert env["PYTHONPATH"] == os.pathsep.join([str(PROBE_DIR), "/apps"]) and os.path.isdir(env[VAR])
    os.rmdir(env[VAR])
    assert (PROBE_DIR / "sitecustomize.py").is_file()
