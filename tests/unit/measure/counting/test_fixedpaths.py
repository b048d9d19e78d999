"""measure.counting.fixedpaths: the counted server reaches its environment and app folder through a stage of fixed length."""

import subprocess
import sys
from pathlib import Path

from serverbench.measure.counting import stagemount
from serverbench.measure.counting.fixedpaths import (
    SEEN,
    STAGE_PARENT,
    Staged,
    claimed_stage,
    fixed_paths,
    named_folder,
    virtual_environment,
)
from serverbench.measure.counting.stagemount import View
from serverbench.measure.serving.bytecode import compile_server


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
    """A short and a long checkout give an interpreter, an app folder and an editable folder of the same lengths, named
    as the server sees the stage; the stage's folder is empty again afterwards."""
    seen = []
    for top in (tmp_path / "a", tmp_path / ("a-much-longer-path" * 4) / "x"):
        (top / "src").mkdir(parents=True)
        (top / "apps").mkdir()
        (top / "apps" / "flask_app.py").write_text("")
        venv = _venv(top / ".venv", top / "src")
        with fixed_paths(str(venv / "bin" / "python"), top / "apps") as staged:
            stage, named = staged.stage, staged.seen.seen
            assert staged.python == f"{named}/v/bin/python" and staged.apps_dir == named / "a"
            assert named.parent == Path(STAGE_PARENT)
            assert (stage / "a" / "flask_app.py").resolve() == (top / "apps" / "flask_app.py").resolve()
            site = stage / "v" / "lib" / "python3.x" / "site-packages"
            assert (site / "pkg").resolve() == (venv / "lib" / "python3.x" / "site-packages" / "pkg").resolve()
            assert staged.folders == (f"{named}/p0",)
            assert (site / "__editable__.me.pth").read_text() == f"{staged.folders[0]}\n"
            assert (stage / "p0").resolve() == (top / "src").resolve()
            assert (site / "hook.pth").is_symlink() and (stage / "v" / "lib64").readlink() == Path("lib")
            assert (stage / "v" / "bin" / "serve").read_text() == f"#!{staged.python}\nimport sys\n"
            assert (stage / "v" / "bin" / "tool").is_symlink() and (stage / "v" / "bin" / "python").is_symlink()
            seen.append((len(staged.python), len(str(staged.apps_dir)), len(staged.folders[0])))
        assert stage.is_dir() and list(stage.iterdir()) == []
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


def test_the_staged_interpreter_takes_its_prefix_and_path_from_the_stage_it_sees(tmp_path):
    """The interpreter of this test's own environment, started through the stage beside another count's (whose slot
    it cannot hold), has its working folder, sys.prefix and every sys.path entry that is not the base interpreter's
    under the one shared stage path, and compiles the app's files naming it; where no mount namespace can be made,
    under its own slot's, and the stage says why."""
    venv = virtual_environment(sys.executable)
    if venv is None:
        return
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "site_app.py").write_text("X = 1\n")
    with claimed_stage() as other, fixed_paths(sys.executable, tmp_path / "apps") as staged:
        assert staged.stage != other
        out = subprocess.run(
            [*staged.enter, staged.python, "-c", "import os, sys; print(os.getcwd(), sys.prefix, *sys.path[1:])"],
            cwd=staged.start_dir,
            capture_output=True,
            text=True,
            check=True,
            env={"PATH": "/usr/bin:/bin"},
        ).stdout.split()
        shared = isinstance(stagemount.available(), stagemount.Way)
        stage = SEEN if shared else staged.stage
        assert (staged.seen.seen, bool(staged.note)) == (stage, not shared), staged.note
        assert out[:2] == [f"{stage}/a", f"{stage}/v"]
        base = Path(sys.base_prefix).resolve()
        assert all(p.startswith(str(stage)) or Path(p).resolve().is_relative_to(base) for p in out[2:]), out
        compile_server(staged.python, (), [f"{staged.apps_dir}/site_app.py"], mark=staged.mark, enter=staged.enter)
        (pyc,) = (staged.stage / "a" / "__pycache__").iterdir()
        assert f"{stage}/a/site_app.py".encode() in pyc.read_bytes()


def test_counts_one_at_a_time_see_one_stage_name(tmp_path):
    """The lowest free slot is taken: the same name for counts in turn, the next one for a count beside it, and a
    folder a killed count left behind is taken over."""
    with claimed_stage(str(tmp_path)) as first:
        (first / "left").write_text("")
        with claimed_stage(str(tmp_path)) as second:
            assert (first.name, second.name) == ("serverbench-paths-00", "serverbench-paths-01")
    assert list(first.iterdir()) == []  # the folder stays: another count's server may see its own stage mounted on it
    (tmp_path / "serverbench-paths-00" / "stale").write_text("")
    with claimed_stage(str(tmp_path)) as again:
        assert again == first and list(again.iterdir()) == []


def test_a_stage_seen_elsewhere_is_entered_from_its_folder_and_names_its_files_there(tmp_path):
    """A stage seen at the shared path through a namespace starts its processes in its own folder (they change to the
    app folder once in), names its files under the shared path and marks its bytecode with it; one seen where it is
    starts in its app folder; one that cannot be seen there marks bytecode by any slot's prefix."""
    stage = tmp_path / "serverbench-paths-01"
    entered = Staged("p", SEEN / "a", (), stage, View(SEEN, ("unshare", "--mount")))
    assert (entered.start_dir, entered.enter, entered.mark) == (stage / "a", ("unshare", "--mount"), f"{SEEN}/")
    assert entered.as_seen(str(stage / "a" / "pkg")) == f"{SEEN}/a/pkg"
    here = Staged("p", stage / "a", (), stage, View(stage))
    assert (here.start_dir, here.enter, here.as_seen(str(stage / "a" / "m.py"))) == (stage / "a", (), f"{stage}/a/m.py")
    alone = Staged("p", stage / "a", (), stage, View(stage, note="no namespace"))
    assert (alone.mark, alone.note) == ("serverbench-paths-", "no namespace")
