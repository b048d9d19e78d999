"""wrk_report.lua's undoing of wrk's coordinated-omission samples, run in LuaJIT (the library wrk itself links)."""

import ctypes
import ctypes.util
import random

import pytest

from serverbench.drivers.wrk import reporter_script

LUAJIT = ctypes.util.find_library("luajit-5.1")

# wrk.c's stats_correct (wrk 4.1.0, src/stats.c), line for line, on a histogram laid out as wrk's `stats`.
STATS_CORRECT = """
local function stats_correct(s, expected)
  local data = s + 4
  for n = expected * 2, tonumber(s[3]) do
    local count = tonumber(data[n])
    local m = n - expected
    while count > 0 and m > expected do
      data[m] = data[m] + count
      s[0] = s[0] + count
      m = m - expected
    end
  end
end
"""

# Build a histogram of the given latencies (us) as wrk records them, correct it as wrk does, undo it with the
# reporter's uncorrect, and return "<synthetic added> <removed> <buckets that differ from the recording>".
TRIAL = """
local latencies, runtime_us, requests = {%s}, %d, %d
local limit = timeout_us + 1
local s = ffi.new("uint64_t[?]", 4 + limit)
s[1], s[2], s[3] = limit, 1e9, 0
for _, n in ipairs(latencies) do
  s[4 + n] = s[4 + n] + 1; s[0] = s[0] + 1
  if n < s[2] then s[2] = n end
  if n > s[3] then s[3] = n end
end
local recorded = ffi.new("uint64_t[?]", 4 + limit)
ffi.copy(recorded, s, (4 + limit) * 8)
stats_correct(s, math.floor(runtime_us / math.floor(requests / connections)))
local added = tonumber(s[0] - recorded[0])
local removed = uncorrect(ffi.new("uint64_t *[1]", s), runtime_us, requests)
local differ = 0
for i = 0, 3 + limit do if s[i] ~= recorded[i] then differ = differ + 1 end end
return string.format("%%d %%d %%d", added, removed, differ)
"""


def run_lua(source: str) -> str:
    """Run a Lua chunk in a fresh LuaJIT state; its returned string, or the Lua error as an AssertionError."""
    lib = ctypes.CDLL(LUAJIT)
    lib.luaL_newstate.restype = ctypes.c_void_p
    lib.lua_tolstring.restype = ctypes.c_char_p
    lib.lua_tolstring.argtypes = (ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
    for name in ("luaL_openlibs", "lua_close"):
        getattr(lib, name).argtypes = (ctypes.c_void_p,)
    lib.luaL_loadstring.argtypes = (ctypes.c_void_p, ctypes.c_char_p)
    lib.lua_pcall.argtypes = (ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int)
    state = lib.luaL_newstate()
    try:
        lib.luaL_openlibs(state)
        failed = lib.luaL_loadstring(state, source.encode()) or lib.lua_pcall(state, 0, 1, 0)
        out = lib.lua_tolstring(state, -1, None).decode()
        assert not failed, out
        return out
    finally:
        lib.lua_close(state)


def trial(latencies_us, runtime_us, requests, connections, timeout_us=200_000):
    """(synthetic samples wrk added, samples the reporter removed, buckets left different) for one histogram."""
    script = reporter_script(connections, 1).replace("1000000", str(timeout_us), 1)
    values = ", ".join(map(str, latencies_us))
    added, removed, differ = run_lua(script + STATS_CORRECT + TRIAL % (values, runtime_us, requests)).split()
    return int(added), int(removed), int(differ)


pytestmark = pytest.mark.skipif(LUAJIT is None, reason="libluajit-5.1 (wrk's Lua) is not installed")


def test_uneven_latencies_get_synthetic_samples_and_the_reporter_removes_exactly_them():
    """A greenlet server's uneven latencies: wrk adds hundreds of samples; the reporter restores its recording."""
    latencies = [50] * 900 + [40_000] * 50 + [120_000] * 10  # 1 s on 4 connections: mostly fast, a few waits
    added, removed, differ = trial(latencies, 1_000_000, len(latencies), 4)
    assert added > 600
    assert (removed, differ) == (added, 0)


@pytest.mark.parametrize("seed", range(4))
def test_random_histograms_are_restored_exactly(seed):
    """Whatever the latencies and connections, the reporter removes exactly what wrk added."""
    rng = random.Random(seed)
    latencies = [int(rng.paretovariate(1.2) * 100) % 150_000 + 1 for _ in range(rng.randint(50, 3000))]
    connections = rng.choice((1, 2, 8, 64))
    runtime_us = sum(latencies) // connections  # a closed model's run: each connection's latencies back to back
    added, removed, differ = trial(latencies, runtime_us, len(latencies), connections)
    assert added > 0
    assert (removed, differ) == (added, 0)


def test_even_latencies_are_left_alone():
    """No latency reaches twice a connection's mean time per request: wrk adds nothing and nothing is removed."""
    latencies = [900, 1000, 1100] * 300
    assert trial(latencies, 1_000_000, len(latencies), 1) == (0, 0, 0)


def test_a_histogram_not_laid_out_as_wrk_4_is_reported_not_touched():
    """A limit other than the timeout's means another layout: the reporter says -1 and changes nothing."""
    script = reporter_script(4, 1)
    out = run_lua(
        script + 'local s = ffi.new("uint64_t[?]", 8); s[1] = 7\n'
        'return tostring(uncorrect(ffi.new("uint64_t *[1]", s), 1000000, 100)) .. " " .. tostring(s[1])'
    )
    assert out == "-1 7ULL"
