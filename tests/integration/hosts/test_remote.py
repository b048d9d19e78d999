"""A session apart from the server host (measure.serving.remote), under `serverbench hosts simulate`: the session runs
on the first load host, its server is started, sampled and ended on the server host over SSH, and nothing of ours but
the sampler's round trips runs there."""

from __future__ import annotations

import json
import re
import sys

from tests.integration.hosts.test_simulate import PYTEST, _left_files, _namespaces, _simulate, needs_namespaces

# Run by `hosts simulate` on load1: pytest, and beside it every process seen in the server host's namespace while a
# generator runs on load1 (the warm-up and the window), polled until pytest ends, printed as JSON after pytest's output.
WATCHER = """
import json, os, subprocess, sys, time
pytest = subprocess.Popen(sys.argv[1:])
def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline") as f:
            return f.read().replace(chr(0), " ").strip()[:160]
    except OSError:
        return ""
def pids(namespace):
    return subprocess.run(["ip", "netns", "pids", namespace], capture_output=True, text=True).stdout.split()
# This simulation's own namespaces (the one it runs in is load1's): another test's simulation may run beside it.
load = subprocess.run(["ip", "netns", "identify", str(os.getpid())], capture_output=True, text=True).stdout.strip()
assert load.startswith("sb") and load.endswith("-load1"), load
server = load.removesuffix("-load1") + "-server"
seen, loaded = set(), 0
while pytest.poll() is None:
    if any(cmdline(p).startswith(("wrk", "/usr/bin/wrk")) for p in pids(load)):
        loaded += 1
        seen.update(cmdline(p) for p in pids(server))
    time.sleep(0.02)
print(chr(10) + json.dumps({"code": pytest.returncode, "loaded": loaded, "seen": sorted(c for c in seen if c)}))
"""
# What may run on the server host while a generator loads it: its sshd (the daemon, and the session carrying our
# connection), the server's tether and the server, and the sampler's shell with the cat of each sample and the grep
# of its cores' busy time (/proc/stat's cpu lines).
OURS_THERE = (
    "sshd",
    "serverbench.hosts.tether",
    "aiohttp",
    "sh -c while read -r _;",
    "cat /proc/",
    "grep ^cpu /proc/stat",
)


@needs_namespaces
def test_a_session_apart_drives_a_server_on_the_server_host_and_reads_its_cpu_there(tmp_path):
    """pytest on load1 drives aiohttp on the server host: its CPU read there is not zero, the record says where it
    was sampled and what the sampler itself used there; while the generator ran, nothing of ours but the server, its
    tether and the sampler's shell ran there; nothing is left."""
    before, files = _namespaces(), _left_files()
    records = tmp_path / "records.json"
    argv = [*PYTEST, "--perf-variants", "aiohttp", "--perf-workloads", "json", "--perf-closed-driver", "wrk"]
    argv += ["-k", "c64", f"--perf-json={records}"]
    done = _simulate(1, sys.executable, "-c", WATCHER, *argv, timeout=300)
    said = done.stdout[-3000:] + done.stderr[-2000:]
    assert done.returncode == 0, said
    watched = json.loads(done.stdout.strip().splitlines()[-1])
    assert watched["code"] == 0, said
    (record,) = json.loads(records.read_text())["results"]
    assert record["server"]["cpu_s"] > 0, record["server"]
    assert record["extra"]["sampler"]["where"] == "server (the server host)"
    assert record["extra"]["sampler"]["cpu_s"] is not None and record["extra"]["sampler"]["cpu_s"] >= 0
    cores = record["extra"]["sampler"]["server_host_cpu"]  # its cores' busy time, read in the same round trips
    assert cores["cores"][:1] == [0] and cores["busy_s"] >= 0.9 * record["server"]["cpu_s"], (cores, record["server"])
    assert record["extra"]["hosts"]["session"] == "apart from the server host"
    assert record["url"].startswith("http://198.18.") and record["requests"] > 0
    assert watched["loaded"] > 0, said  # the generator was seen running
    strangers = [c for c in watched["seen"] if not any(o in c for o in OURS_THERE)]
    assert not strangers, strangers
    assert any("aiohttp" in c for c in watched["seen"]) and any("while read" in c for c in watched["seen"])
    assert _namespaces() == before and _left_files() == files


@needs_namespaces
def test_without_a_backends_host_the_backends_run_on_the_server_host_and_the_record_says_so(tmp_path):
    """A session apart on /redis with no backends host: Redis runs on the server host beside the server (not on
    load1), its CPU is read there, and every record says the backends shared the server's host."""
    before, files = _namespaces(), _left_files()
    records = tmp_path / "records.json"
    argv = [*PYTEST, "--perf-variants", "aiohttp", "--perf-workloads", "redis", "--perf-closed-driver", "wrk"]
    argv += ["-k", "c64", f"--perf-json={records}"]
    done = _simulate(1, *argv, timeout=300)
    said = done.stdout[-3000:] + done.stderr[-2000:]
    assert done.returncode == 0, said
    assert "(shared with the server)" in said, said
    (record,) = json.loads(records.read_text())["results"]
    assert record["extra"]["hosts"]["backends"] == {"host": "server", "shared_with_server": True}
    (redis,) = [b for b in record["backends"] if b["name"] == "redis"]
    assert redis["cpu_s"] is not None and redis["cpu_s"] > 0, record["backends"]
    assert record["server"]["cpu_s"] > 0
    assert _namespaces() == before and _left_files() == files


# Run on load1: the simulation's inventory with the server host's env (its block only) made one with no interpreter.
NO_INTERPRETER = """
set -e
sed '/^role = "server"$/,/^\\[\\[hosts\\]\\]$/ s|^env = .*$|env = "/nonexistent/venv"|' "$SERVERBENCH_HOSTS" > "$1"
SERVERBENCH_HOSTS="$1" "$2" -m pytest -p no:cacheprovider -m perf --perf-variants aiohttp --perf-workloads json
"""


@needs_namespaces
def test_a_server_host_without_the_interpreter_the_inventory_names_is_refused_before_any_server_starts(tmp_path):
    """The inventory's env has no bin/python there: the session stops before any cell, naming the host, the env it
    was given and the check command; no test ran."""
    before, files = _namespaces(), _left_files()
    argv = ["bash", "-c", NO_INTERPRETER, "refused", str(tmp_path / "hosts.toml"), sys.executable]
    done = _simulate(1, *argv, timeout=120)
    said = done.stdout + done.stderr
    assert done.returncode == 4, said[-3000:]  # pytest's usage error
    assert "/nonexistent/venv/bin/python" in said and "serverbench hosts check" in said, said[-3000:]
    assert "server (server, root@198.18." in said, said[-3000:]
    assert not re.search(r"\d+ (passed|failed)", said) and "load1 (load" not in said, said[-3000:]
    assert _namespaces() == before and _left_files() == files
