"""Who measured: the machine id that baselines are stored under, and the interpreter's identity.

The id is built from what changes throughput (CPU model, cores, interpreter, driver), never the
hostname, so the same kind of machine shares baselines and a different one never silently does.
"""

from __future__ import annotations

import os
import platform
import re
from typing import Any

from ...drivers.base import Driver
from ...records.schema import interpreter_label
from .interpreter import describe


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown-cpu"


def python_info() -> dict[str, Any]:
    """This interpreter as a record names it: implementation, version, executable, build, the GIL (.interpreter)."""
    return describe()


def machine_info(driver: str) -> dict[str, Any]:
    cores = os.cpu_count() or 1
    py = python_info()
    info = {
        "cpu": cpu_model(),
        "cores": cores,
        "arch": platform.machine(),
        "system": platform.system(),
        "python": interpreter_label(py),  # a free-threaded build is another interpreter: cpython-3.13t
        "driver": driver,
    }
    info["id"] = machine_id(info)
    return info


def run_machine(closed: Driver, load_hosts: int = 0) -> dict[str, Any]:
    """This machine as a run's records name it: its closed-model driver's name and version (each driver's throughput
    is its own, so its baselines are too) and, with ``load_hosts`` other hosts sending the load, their number (load
    from other hosts measures another system than load from this one)."""
    return machine_info(f"{closed.name}-{closed.version}" + (f"-{load_hosts}load" if load_hosts else ""))


def machine_id(info: dict[str, Any]) -> str:
    """A readable, filename-safe id such as ``intel-xeon-platinum-8375c-2c-cpython-3.11-wrk-4.1.0``."""
    cpu = re.sub(r"\((r|tm)\)|\bcpu\b|@.*$|\bprocessor\b", "", info["cpu"].lower())
    cpu = re.sub(r"[^a-z0-9.]+", "-", cpu).strip("-") or "unknown-cpu"
    driver = re.sub(r"[^a-z0-9.]+", "-", info["driver"].lower()).strip("-")
    return f"{cpu}-{info['cores']}c-{info['python']}-{driver}"
