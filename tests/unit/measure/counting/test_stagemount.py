"""measure.counting.stagemount: a count's server sees its stage at the one shared path, in a mount namespace of its own."""

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from serverbench.measure.counting import stagemount
from serverbench.measure.counting.callgrind import CountingError
from serverbench.measure.counting.stagemount import MOUNT_SCRIPT, View, Way, check_seen, entering, view, ways

SHARED = Path("/tmp/serverbench-paths-00")


def test_root_mounts_in_a_mount_namespace_and_another_user_through_a_user_namespace_mapped_back():
    """Root tries a mount namespace alone first; any user a user namespace mapped to root to mount, whose shell then
    execs a nested one mapping the user's own ids back."""
    mount, user = ways("/usr/bin/unshare", 0, 0)
    assert mount.before == ("/usr/bin/unshare", "--mount", "--propagation", "private", "--") and mount.after == ()
    (other,) = ways("/usr/bin/unshare", 1000, 100)
    assert other.before == (
        "/usr/bin/unshare",
        "--user",
        "--map-root-user",
        "--mount",
        "--propagation",
        "private",
        "--",
    )
    assert other.after == ("/usr/bin/unshare", "--user", "--map-user=1000", "--map-group=100", "--")
    assert user.after[-3:] == ("--map-user=0", "--map-group=0", "--")


def test_the_command_line_mounts_the_stage_changes_to_the_start_folder_then_execs_what_follows():
    """Before the program's own command: the way's, a shell given the stage, the shared path and the start folder, then
    what the way runs after mounting; the shell execs (the pid stays the program's)."""
    way = Way("w", ("unshare", "--mount"), ("after",))
    line = entering(way, Path("/tmp/serverbench-paths-03"), SHARED, SHARED / "a")
    assert line[:2] == ("unshare", "--mount") and line[3:5] == ("-c", MOUNT_SCRIPT)
    assert line[5:] == ("sh", "/tmp/serverbench-paths-03", str(SHARED), f"{SHARED}/a", "after")
    assert MOUNT_SCRIPT.index("mount --bind") < MOUNT_SCRIPT.index('cd "$3"') < MOUNT_SCRIPT.index('exec "$@"')


def test_a_count_sees_the_shared_path_itself_through_a_namespace_or_its_own_slot_noted():
    """The count holding the shared path starts where it is; another enters a namespace where one can be made; where
    none can, it keeps its own slot's path and its note says why, naming the shared path."""
    way = Way("w", ("unshare",))
    assert view(SHARED, SHARED, "a", way) == View(SHARED)
    other = Path("/tmp/serverbench-paths-01")
    assert view(other, SHARED, "a", way) == View(SHARED, entering(way, other, SHARED, SHARED / "a"))
    alone = view(other, SHARED, "a", "mount namespace: unshare failed: Operation not permitted")
    assert (alone.seen, alone.enter) == (other, ())
    assert str(SHARED) in alone.note and "unshare failed: Operation not permitted" in alone.note


def _a_way() -> Way:
    way = stagemount.available()
    if isinstance(way, str):
        pytest.skip(f"no mount namespace can be made here: {way}")
    return way


def test_a_program_entered_sees_the_stage_at_the_shared_path_with_its_own_pid_and_ids(tmp_path):
    """The program runs in the start folder under the shared path, reads the stage there, and is the process started
    (every step exec'd), with the caller's uid and gid; the shared path outside is left as it was."""
    way = _a_way()
    stage, seen = tmp_path / "stage", tmp_path / "seen"
    (stage / "a").mkdir(parents=True)
    (stage / "a" / "marker").write_text("staged")
    started = subprocess.Popen(
        [*entering(way, stage, seen, seen / "a"), "sh", "-c", 'echo $$ $(id -u) $(id -g) "$(pwd)" $(cat marker)'],
        cwd=stage / "a",
        stdout=subprocess.PIPE,
        text=True,
    )
    out = started.communicate(timeout=30)[0].split()
    assert out == [str(started.pid), str(os.getuid()), str(os.getgid()), f"{seen}/a", "staged"]
    assert list(seen.iterdir()) == []


def test_another_user_mounts_through_a_user_namespace_and_keeps_its_ids():
    """As an unprivileged user (nobody, from root through setpriv) the user-namespace way mounts the stage and the
    program sees the user's own uid and gid."""
    unshare, setpriv = shutil.which("unshare"), shutil.which("setpriv")
    if os.getuid() != 0 or unshare is None or setpriv is None:
        pytest.skip("needs root, to become another user with setpriv (util-linux)")
    (way,) = ways(unshare, 65534, 65534)
    with tempfile.TemporaryDirectory(prefix="serverbench-stagemount-test-", dir="/tmp") as top:
        os.chmod(top, 0o755)
        stage, seen = Path(top) / "stage", Path(top) / "seen"
        stage.mkdir(mode=0o755)
        seen.mkdir(mode=0o755)  # root's: nobody mounts on it, as on another user's -00
        (stage / "marker").write_text("staged")
        as_nobody = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        ran = subprocess.run(
            [*as_nobody, *entering(way, stage, seen, seen), "sh", "-c", "echo $(id -u) $(id -g) $(cat marker)"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if ran.returncode != 0 and "unshare failed" in ran.stderr:
            pytest.skip(f"unprivileged user namespaces are refused here: {ran.stderr.strip()}")
        assert ran.stdout.split() == ["65534", "65534", "staged"], ran.stderr


def test_a_stage_whose_mount_point_is_removed_outside_is_found_gone(tmp_path):
    """While the shared path stays, the entered process sees its stage there; once something removes the folder outside
    (the mount goes with it), the check raises and says what happened."""
    way = _a_way()
    stage, seen = tmp_path / "stage", tmp_path / "seen"
    stage.mkdir()
    waiting = subprocess.Popen([*entering(way, stage, seen, seen), "sleep", "30"], cwd=stage)
    try:
        deadline = time.monotonic() + 10
        while Path(f"/proc/{waiting.pid}/cmdline").read_bytes().split(b"\0")[0] != b"sleep":  # mounted, then exec'd
            assert time.monotonic() < deadline and waiting.poll() is None, "the entered process never started"
            time.sleep(0.01)
        check_seen(waiting.pid, stage, seen)
        seen.rmdir()
        with pytest.raises(CountingError, match="was removed while it counted"):
            check_seen(waiting.pid, stage, seen)
    finally:
        waiting.kill()
        waiting.wait()
