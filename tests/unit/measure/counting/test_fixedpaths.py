"""measure.counting.fixedpaths: the counted server reaches its environment and app folder through a stage of fixed length."""

import subprocess
import sys
from pathlib import Path

from serverbench.measure.counting.fixedpaths import (
    STAGE_PARENT,
    claimed_stage,
    fixed_paths,
    named_folder,
    virtual_environment,
)


def _venv(root: Path, src: Path) -> Path:
    """A virtual environment's shape: pyvenv.cfg, bin/python, site-packages with a package and an editable .pth."""
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "python").symlink_to(sys.executable)
    (root / "bin" / "serve").write_text(f"#!{root}/bin/python\nimport sys\n")
    (root / "bin" / "tool").write_text("#!/bin/sh\necho\n")
    (root / "pyvenv.cfg").write_text(f"home = {Path(sys.executable).parent}\ninclude-system-site-packages = false\n")
    (root / "lib64").symlink_to("lib")
    site = root / "lib" / "python3.x" / "site-packages"
    (site / "pkg").mkdir(parents=True)
    (site / "pkg" / "__init__.py").write_text("")
    (site / "__editable__.me.pth").write_text(f"{src}\n")
    (site / "hook.pth").write_text("import os\n")
    return root


def test_two_checkouts_are_seen_through_paths_of_one_length(tmp_path):
    """A short and a long checkout give an interpreter, an app folder and an editable folder of the same lengths."""
    seen = []
    for top in (tmp_path / "a", tmp_path / ("a-much-longer-path" * 4) / "x"):
        (top / "src").mkdir(parents=True)
        (top / "apps").mkdir()
        (top / "apps" / "flask_app.py").write_text("")
        venv = _venv(top / ".venv", top / "src")
        with fixed_paths(str(venv / "bin" / "python"), top / "apps") as staged:
            assert (
                staged.python.startswith(STAGE_PARENT + "/")
                and staged.apps_dir.parent == Path(staged.python).parents[2]
            )
            assert (staged.apps_dir / "flask_app.py").resolve() == (top / "apps" / "flask_app.py").resolve()
            site = Path(staged.python).parents[1] / "lib" / "python3.x" / "site-packages"
            assert (site / "pkg").resolve() == (venv / "lib" / "python3.x" / "site-packages" / "pkg").resolve()
            assert (site / "__editable__.me.pth").read_text() == f"{staged.folders[0]}\n"
            assert Path(staged.folders[0]).resolve() == (top / "src").resolve()
            assert (site / "hook.pth").is_symlink() and (Path(staged.python).parents[1] / "lib64").readlink() == Path(
                "lib"
            )
            bindir = Path(staged.python).parent
            assert (bindir / "serve").read_text() == f"#!{staged.python}\nimport sys\n"
            assert (bindir / "tool").is_symlink() and (bindir / "python").is_symlink()
            seen.append((len(staged.python), len(str(staged.apps_dir)), len(staged.folders[0])))
        assert not Path(staged.python).parents[1].exists()
        assert (top / "apps" / "flask_app.py").exists() and (venv / "lib").is_dir()
    assert seen[0] == seen[1]


def test_an_interpreter_outside_a_virtual_environment_keeps_its_path(tmp_path):
    """A system interpreter's path is the machine's, not the checkout's: it is used as it is."""
    (tmp_path / "apps").mkdir()
    with fixed_paths("/usr/bin/python3", tmp_path / "apps") as staged:
        assert staged.python == "/usr/bin/python3" and staged.folders == ()
    assert virtual_environment("/usr/bin/python3") is None


def test_a_pth_line_names_a_folder_only_when_it_is_an_absolute_existing_path(tmp_path):
    """Code, comments, relative paths and missing folders are left as they are (site skips them too)."""
    assert named_folder(f"  {tmp_path}  ") == str(tmp_path)
    assert named_folder("import sys; sys.path.append('x')") is None
    assert named_folder("# a comment") is None and named_folder("relative/src") is None
    assert named_folder(str(tmp_path / "missing")) is None


def test_the_staged_interpreter_takes_its_prefix_and_path_from_the_stage(tmp_path):
    """The interpreter of this test's own environment, started through the stage, has sys.prefix and every
    sys.path entry that is not the base interpreter's under the stage."""
    venv = virtual_environment(sys.executable)
    if venv is None:
        return
    (tmp_path / "apps").mkdir()
    with fixed_paths(sys.executable, tmp_path / "apps") as staged:
        out = subprocess.run(
            [staged.python, "-c", "import sys; print(sys.prefix); print(*sys.path[1:], sep='\\n')"],
            cwd=staged.apps_dir,
            capture_output=True,
            text=True,
            check=True,
            env={"PATH": "/usr/bin:/bin"},
        ).stdout.split()
        stage = str(Path(staged.python).parents[2])
        assert out[0] == f"{stage}/v"
        base = Path(sys.base_prefix).resolve()
        assert all(p.startswith(stage) or Path(p).resolve().is_relative_to(base) for p in out[1:]), out


def test_counts_one_at_a_time_see_one_stage_name(tmp_path):
    """The lowest free slot is taken: the same name for counts in turn, the next one for a count beside it, and a
    folder a killed count left behind is taken over."""
    with claimed_stage(str(tmp_path)) as first:
        (first / "left").write_text("")
        with claimed_stage(str(tmp_path)) as second:
            assert (first.name, second.name) == ("serverbench-paths-00", "serverbench-paths-01")
    assert not first.exists()
    (tmp_path / "serverbench-paths-00").mkdir()
    (tmp_path / "serverbench-paths-00" / "stale").write_text("")
    with claimed_stage(str(tmp_path)) as again:
        assert again == first and list(again.iterdir()) == []
