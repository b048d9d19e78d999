"""measure.host.machine: the machine id baselines are stored under (hardware, interpreter, driver; never the hostname)
and the interpreter's identity."""

from __future__ import annotations

import os
import platform
import sys

from serverbench.measure.host.machine import cpu_model, machine_id, machine_info, python_info, run_machine


def test_machine_id_has_hardware_interpreter_and_driver_but_no_hostname():
    """The machine id is built from CPU, cores, interpreter and driver, never the hostname."""
    import socket

    info = machine_info("wrk-4.1.0")
    assert info["id"].endswith("-wrk-4.1.0")
    assert f"-{info['cores']}c-" in info["id"]
    assert socket.gethostname().lower() not in info["id"]
    assert (
        machine_id({"cpu": "Intel(R) Xeon(R) CPU @ 2.20GHz", "cores": 4, "python": "pypy-3.9", "driver": "wrk-4.1"})
        == "intel-xeon-4c-pypy-3.9-wrk-4.1"
    )


def test_machine_id_drops_trademarks_filler_words_and_the_clock_and_keeps_dots():
    """(R), (TM), 'CPU', 'Processor' and '@ clock' go; other runs of non-alphanumerics become one dash."""
    assert (
        machine_id(
            {"cpu": "AMD EPYC 7B13 64-Core Processor", "cores": 8, "python": "cpython-3.12", "driver": "oha 1.4"}
        )
        == "amd-epyc-7b13-64-core-8c-cpython-3.12-oha-1.4"
    )
    assert (
        machine_id({"cpu": "Intel(TM) Core(TM) i7-8700 CPU", "cores": 12, "python": "cpython-3.11", "driver": "wrk"})
        == "intel-core-i7-8700-12c-cpython-3.11-wrk"
    )
    assert (
        machine_id({"cpu": "Neoverse_N1 (v2.1)", "cores": 2, "python": "cpython-3.13", "driver": "Locust/2.31 (py)"})
        == "neoverse-n1-v2.1-2c-cpython-3.13-locust-2.31-py"
    )


def test_a_cpu_name_with_nothing_left_is_unknown_cpu():
    """A model string that is only trademarks, filler and a clock still gives a readable id."""
    info = {"cpu": "(R) CPU @ 3.00GHz", "cores": 1, "python": "pypy-3.10", "driver": "wrk-4.2.0"}
    assert machine_id(info) == "unknown-cpu-1c-pypy-3.10-wrk-4.2.0"


def test_machine_info_names_this_machine_and_this_interpreter():
    """Cores, architecture, system and 'implementation-major.minor' come from this process; the id is built from them."""
    info = machine_info("wrk-4.1.0")
    impl = platform.python_implementation().lower()
    assert info["cores"] == (os.cpu_count() or 1)
    assert (info["arch"], info["system"], info["driver"]) == (platform.machine(), platform.system(), "wrk-4.1.0")
    assert info["python"] == f"{impl}-{sys.version_info.major}.{sys.version_info.minor}"
    assert info["cpu"] == cpu_model() and info["id"] == machine_id(info)


def test_a_runs_machine_names_its_closed_driver_and_its_load_hosts():
    """The driver part of the id is the closed-model driver's name and version, then the load hosts' number when
    other hosts send the load; none: this machine's load, no suffix."""

    class Closed:  # a stand-in: only its name and version are read
        name, version = "oha", "1.16.0"

    assert run_machine(Closed(), 3)["driver"] == "oha-1.16.0-3load"
    assert run_machine(Closed())["id"] == machine_info("oha-1.16.0")["id"]


def test_python_info_is_the_running_interpreter():
    """Implementation in lower case, the full version, the executable of this process, its build and GIL."""
    info = python_info()
    assert (info["implementation"], info["version"], info["executable"]) == (
        platform.python_implementation().lower(),
        platform.python_version(),
        sys.executable,
    )
    assert info["build"].startswith(platform.python_build()[0]) and isinstance(info["free_threaded"], bool)


def test_a_free_threaded_build_has_a_machine_id_of_its_own(monkeypatch):
    """cpython-3.13t: its figures are never compared with the GIL build's baselines."""
    import serverbench.measure.host.machine as machine

    monkeypatch.setattr(
        machine, "describe", lambda: {"implementation": "cpython", "version": "3.13.1", "free_threaded": True}
    )
    assert "-cpython-3.13t-wrk" in machine.machine_info("wrk")["id"]


def test_the_cpu_model_is_the_first_model_name_line_of_proc_cpuinfo():
    """On Linux the model is read from /proc/cpuinfo's 'model name' line; elsewhere a platform name stands in."""
    if not os.path.exists("/proc/cpuinfo"):
        assert cpu_model() == (platform.processor() or platform.machine() or "unknown-cpu")
        return
    with open("/proc/cpuinfo") as f:
        names = [line.split(":", 1)[1].strip() for line in f if line.lower().startswith("model name")]
    assert cpu_model() == (names[0] if names else platform.processor() or platform.machine() or "unknown-cpu")
