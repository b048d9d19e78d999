"""measure.host.hostcpu: the whole machine's busy and stolen CPU seconds between two readings of the kernel's counters,
checked against psutil's own readings taken just before and just after (no server)."""

from __future__ import annotations

import time

import psutil

from serverbench.measure.host.hostcpu import HostSampler, _read

BUSY = ("user", "nice", "system", "irq", "softirq")  # idle, iowait and the guests' time are not busy


def _busy_and_steal() -> tuple[float, float]:
    times = psutil.cpu_times()
    return sum(getattr(times, f, 0.0) for f in BUSY), getattr(times, "steal", 0.0)


def _spin_until_the_counters_move(by_s: float = 0.05, cap_s: float = 10.0) -> None:
    """Burn CPU in this process until the machine's busy counter has grown by ``by_s`` (or ``cap_s`` has passed)."""
    start, deadline = _busy_and_steal()[0], time.monotonic() + cap_s
    while _busy_and_steal()[0] - start < by_s and time.monotonic() < deadline:
        sum(i * i for i in range(10_000))


def test_a_reading_is_user_nice_system_irq_and_softirq_summed_and_the_steal():
    """_read() lies between two psutil readings around it: busy is exactly those five fields, steal on its own."""
    before = _busy_and_steal()
    busy, steal = _read()
    after = _busy_and_steal()
    assert before[0] <= busy <= after[0]
    assert before[1] <= steal <= after[1]


def test_the_sampler_reports_the_difference_between_its_two_readings_rounded_to_milliseconds():
    """busy, steal and wall from HostSampler lie between the differences read just inside and just outside it."""
    outer_cpu, outer_t = _busy_and_steal(), time.monotonic()
    sampler = HostSampler()
    inner_cpu, inner_t = _busy_and_steal(), time.monotonic()
    _spin_until_the_counters_move()
    inner_end_cpu, inner_end_t = _busy_and_steal(), time.monotonic()
    host = sampler.stop()
    outer_end_cpu, outer_end_t = _busy_and_steal(), time.monotonic()
    slack = 0.0005  # the rounding to three places
    assert inner_end_cpu[0] - inner_cpu[0] - slack <= host.busy_s <= outer_end_cpu[0] - outer_cpu[0] + slack
    assert inner_end_cpu[1] - inner_cpu[1] - slack <= host.steal_s <= outer_end_cpu[1] - outer_cpu[1] + slack
    assert inner_end_t - inner_t - slack <= host.wall_s <= outer_end_t - outer_t + slack
    assert host.busy_s > 0
    assert all(round(v, 3) == v for v in (host.busy_s, host.steal_s, host.wall_s))
