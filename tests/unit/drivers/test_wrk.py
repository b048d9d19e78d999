import ctypes
import ctypes.util
import random
from pathlib import Path

import pytest

from serverbench.catalog.contract import Request
from serverbench.catalog.shapes import LoadShape
from serverbench.drivers import wrk as wrk_module
from serverbench.drivers.wrk import (
    REPORTER,
    WrkDriver,
    lua_string,
    mix_script,
    parse_report,
    reporter_script,
    split_threads,
)
from serverbench.errors import GeneratorError
from tests.unit.drivers.canned import canned_generator

# A line captured from a real run of wrk 4.1.0 with serverbench's reporter (gunicorn, /json).
REAL = (
    "Running 2s test @ http://127.0.0.1:21000/json\n  2 threads and 64 connections\n"
    'SERVERBENCH-WRK {"requests":6650,"duration_us":2004132,"bytes":1097250,"synthetic_removed":0,'
    '"latency_us":{"p50":19090,"p75":20400,"p90":22000,"p99":25030,"p999":31000,"max":40210,'
    '"mean":19123.500,"stdev":1800.250},"errors":{"connect":0,"read":12,"write":0,"timeout":0,"status":5}}\n'
)


def test_parse_real_report():
    """Requests, duration, latency (µs → ms) and error classes come out of the reporter's JSON line."""
    report = parse_report(REAL)
    assert report.requests == 6650
    assert report.duration_s == pytest.approx(2.004132)
    assert report.latency_ms["p50"] == pytest.approx(19.09)
    assert report.latency_ms["p999"] == pytest.approx(31.0)
    assert report.errors == {"connect": 0, "read": 12, "write": 0, "timeout": 0, "status": 5}


def test_rps_counts_only_non_error_responses():
    """Responses with an error status do not count towards throughput."""
    report = parse_report(REAL)
    assert report.good_requests == 6645
    assert report.rps == pytest.approx(6645 / 2.004132)


def test_error_rate_over_attempts():
    """The error rate is all errors over completed responses plus failed connections."""
    report = parse_report(REAL)
    assert report.error_rate == pytest.approx(17 / (6650 + 12))


def test_missing_report_line_is_an_error_with_the_output():
    """If wrk printed no report (e.g. could not connect), the error shows what it printed."""
    with pytest.raises(GeneratorError, match="(?s)0 report lines.*unable to connect"):
        parse_report("unable to connect to 127.0.0.1:9 Connection refused\n")


def test_malformed_report_line_is_an_error():
    """A truncated JSON line is reported, not half-parsed."""
    with pytest.raises(GeneratorError, match="malformed"):
        parse_report('SERVERBENCH-WRK {"requests":1}\n')


def test_a_histogram_the_reporter_could_not_undo_is_an_error_naming_the_fix():
    """The reporter's -1 (not wrk 4.x's histogram): no latencies with wrk's synthetic samples are recorded."""
    with pytest.raises(GeneratorError, match="coordinated omission.*--perf-closed-driver oha"):
        parse_report(REAL.replace('"synthetic_removed":0', '"synthetic_removed":-1'))


@pytest.mark.parametrize(
    ("threads", "connections", "expected"),
    [(2, 64, 2), (2, 1, 1), (2, 5, 1), (3, 64, 2), (4, 400, 4), (8, 6, 6), (1, 64, 1)],
)
def test_wrk_threads_divide_the_connections(threads, connections, expected):
    """wrk opens connections // threads per thread: the threads chosen divide the connections, so all are opened."""
    assert split_threads(threads, connections) == expected


def test_the_reporter_is_told_the_connections_and_timeout_before_any_request_script():
    """The script wrk runs starts with the -c and timeout the reporter needs, then the request script, then the reporter."""
    script = reporter_script(64, 5, "-- requests\n")
    assert script.startswith("local connections, timeout_us = 64, 5000000\n-- requests\n")
    assert script.rstrip().endswith("end")


def test_the_report_is_wrks_with_its_bytes_and_exact_duration():
    """The report names wrk as its driver, carries the bytes read and the duration to the microsecond; as wrk's, a
    timeout is not an attempt of its own (wrk still counts the answer): 3 timeouts add to the errors, not the attempts."""
    report = parse_report(REAL.replace('"timeout":0', '"timeout":3'))
    assert report.driver == "wrk" and report.bytes == 1097250 and report.duration_s == 2.004132
    assert report.error_rate == pytest.approx(20 / (6650 + 12))


def test_lua_strings_escape_every_byte_outside_printable_ascii():
    """Printable ASCII stays as it is (but the quote and backslash); DEL (127) and control bytes are escaped, space kept."""
    assert lua_string(b' ~\x7f\x1f"\\') == '" ~\\127\\031\\034\\092"'


def test_a_keep_alive_mix_closes_no_connection():
    """Without requests per connection the script's per_connection is 0: no request is sent with Connection: close."""
    assert "\nlocal per_connection = 0\n" in mix_script([("/a", 1)])
    assert "\nlocal per_connection = 3\n" in mix_script([("/a", 1)], 3)


def test_every_header_of_a_request_is_formatted_into_the_script():
    """Two headers become two entries of wrk.format's header table, each closed by a comma."""
    from serverbench.catalog.contract import Request

    lua = mix_script([("/a", 1)], None, Request("GET", (("A", "1"), ("B", "2"))))
    assert 'wrk.format(method, p, {["A"] = "1", ["B"] = "2", }, body)' in lua


def test_each_line_of_the_request_script_is_a_comment_or_a_lua_statement():
    """The script wrk loads starts with a comment line, then its statements, one a line (no stray text before them)."""
    import re

    lines = mix_script([("/a", 2), ("/b", 1)], 2).splitlines()
    assert lines[0].startswith("-- ") and lines[1].startswith("local paths = {")
    assert all(re.match(r"(--|local |init |request |end$|\s)", line) for line in lines), lines


# Merged from test_wrk_uncorrect.py: wrk_report.lua's undoing of wrk's coordinated-omission samples, run in LuaJIT
# (the library wrk itself links).
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


needs_luajit = pytest.mark.skipif(LUAJIT is None, reason="libluajit-5.1 (wrk's Lua) is not installed")


@needs_luajit
def test_uneven_latencies_get_synthetic_samples_and_the_reporter_removes_exactly_them():
    """A greenlet server's uneven latencies: wrk adds hundreds of samples; the reporter restores its recording."""
    latencies = [50] * 900 + [40_000] * 50 + [120_000] * 10  # 1 s on 4 connections: mostly fast, a few waits
    added, removed, differ = trial(latencies, 1_000_000, len(latencies), 4)
    assert added > 600
    assert (removed, differ) == (added, 0)


@pytest.mark.parametrize("seed", range(4))
@needs_luajit
def test_random_histograms_are_restored_exactly(seed):
    """Whatever the latencies and connections, the reporter removes exactly what wrk added."""
    rng = random.Random(seed)
    latencies = [int(rng.paretovariate(1.2) * 100) % 150_000 + 1 for _ in range(rng.randint(50, 3000))]
    connections = rng.choice((1, 2, 8, 64))
    runtime_us = sum(latencies) // connections  # a closed model's run: each connection's latencies back to back
    added, removed, differ = trial(latencies, runtime_us, len(latencies), connections)
    assert added > 0
    assert (removed, differ) == (added, 0)


@needs_luajit
def test_even_latencies_are_left_alone():
    """No latency reaches twice a connection's mean time per request: wrk adds nothing and nothing is removed."""
    latencies = [900, 1000, 1100] * 300
    assert trial(latencies, 1_000_000, len(latencies), 1) == (0, 0, 0)


@needs_luajit
def test_a_histogram_not_laid_out_as_wrk_4_is_reported_not_touched():
    """A limit other than the timeout's means another layout: the reporter says -1 and changes nothing."""
    script = reporter_script(4, 1)
    out = run_lua(
        script + 'local s = ffi.new("uint64_t[?]", 8); s[1] = 7\n'
        'return tostring(uncorrect(ffi.new("uint64_t *[1]", s), 1000000, 100)) .. " " .. tostring(s[1])'
    )
    assert out == "-1 7ULL"


# Merged from test_mutation_drivers.py: The drivers' run(): the command, the script and the error of a failed run,
# with the generator process replaced by a canned one (issue 22, mutation survivors of drivers.wrk and drivers.oha; no
# load is sent).
WRK_LINE = (
    'SERVERBENCH-WRK {"requests":10,"duration_us":2000000,"bytes":100,"synthetic_removed":0,"latency_us":{"p50":1000,"p75":1000,'
    '"p90":1000,"p99":1000,"p999":1000,"max":1000,"mean":1000,"stdev":0},"errors":{"connect":0,"read":0,'
    '"write":0,"timeout":0,"status":0}}\n'
)


def _wrk():
    driver = WrkDriver(threads=2, timeout_s=4)
    driver.__dict__["binary"] = "wrk"  # the cached lookup: no wrk needed
    return driver


def test_wrk_plain_run_uses_the_reporter_and_a_bounded_timeout(monkeypatch):
    """A plain GET keep-alive run uses the reporter script alone (told -c and --timeout, to undo wrk's
    coordinated-omission samples), timeout duration + per-request timeout + 30 s."""
    calls = canned_generator(monkeypatch, wrk_module, WRK_LINE)
    report, run = _wrk().run("http://127.0.0.1:1/json", LoadShape(8, 2), cpus=[1])
    assert report.requests == 10 and run.returncode == 0
    (call,) = calls
    assert call["argv"][:6] == ["wrk", "-t2", "-c8", "-d2s", "--timeout=4s", "-s"]
    assert call["argv"][6].endswith(".lua") and call["argv"][7:] == ["http://127.0.0.1:1/json"]
    assert call["script"] == "local connections, timeout_us = 8, 4000000\n" + REPORTER.read_text()
    assert call["timeout"] == 2 + 4 + 30 and call["cpus"] == [1]


def test_wrk_with_requests_per_connection_writes_a_script_for_the_urls_path_and_query(monkeypatch):
    """A shape that closes connections gets a request script for the URL's path and query, then the reporter."""
    calls = canned_generator(monkeypatch, wrk_module, WRK_LINE)
    _wrk().run("http://127.0.0.1:1/sleep?ms=5", LoadShape(8, 2, requests_per_connection=3))
    script = calls[0]["script"]
    assert 'local paths = {"/sleep?ms=5"}' in script and "local per_connection = 3" in script
    assert script.endswith(REPORTER.read_text())
    _wrk().run("http://127.0.0.1:1/json", LoadShape(8, 2, requests_per_connection=1))
    assert 'local paths = {"/json"}' in calls[1]["script"]


def test_wrk_with_a_mix_or_a_request_writes_a_script(monkeypatch):
    """A URL mix, or a request with a method, writes the request script (the mix's paths, the method)."""
    calls = canned_generator(monkeypatch, wrk_module, WRK_LINE)
    _wrk().run("http://127.0.0.1:1/", LoadShape(8, 2), mix=[("/a", 2), ("/b", 1)])
    assert 'local paths = {"/a", "/a", "/b"}' in calls[0]["script"]
    _wrk().run("http://127.0.0.1:1/x", LoadShape(8, 2), request=Request("POST"))
    assert 'local method, body = "POST", nil' in calls[1]["script"]


def test_wrk_failed_run_is_an_error_with_the_end_of_its_output(monkeypatch):
    """wrk exiting non-zero is a GeneratorError with its exit code and the last 500 characters it printed."""
    canned_generator(monkeypatch, wrk_module, "out", returncode=3, stderr="x" * 600 + "the end")
    with pytest.raises(GeneratorError) as err:
        _wrk().run("http://127.0.0.1:1/json", LoadShape(8, 2))
    assert str(err.value) == "wrk exited with code 3: " + ("x" * 600 + "the end")[-500:]
    canned_generator(monkeypatch, wrk_module, "only stdout", returncode=1)
    with pytest.raises(GeneratorError, match="wrk exited with code 1: only stdout$"):
        _wrk().run("http://127.0.0.1:1/json", LoadShape(8, 2))


def test_wrk_uses_no_more_threads_than_connections():
    """Two threads for one connection would leave one idle: wrk gets one."""
    assert _wrk().argv("u", 1, 2, Path("s.lua"))[1] == "-t1" and _wrk().argv("u", 8, 2, Path("s.lua"))[1] == "-t2"


def test_wrk_writes_its_script_in_a_temporary_folder_named_for_it(monkeypatch):
    """The script wrk is given lives in a temporary folder named serverbench-wrk-…, so a leftover says whose it is."""
    calls = canned_generator(monkeypatch, wrk_module, WRK_LINE)
    _wrk().run("http://127.0.0.1:1/json", LoadShape(8, 2))
    assert Path(calls[0]["argv"][6]).parent.name.startswith("serverbench-wrk-")


def test_runs_on_several_load_hosts_merge_their_histograms_not_their_percentiles():
    """Two wrk runs' report and histogram lines: requests, bytes and errors add up, the p99 is all requests' p99."""
    from serverbench.drivers.wrk import merged, parse_histogram, parse_report

    def printed(requests: int, p99_us: int, hist: str, timeouts: int) -> str:
        return (
            f'SERVERBENCH-WRK {{"requests":{requests},"duration_us":5000000,"bytes":{requests * 10},"synthetic_removed":0,'
            f'"latency_us":{{"p50":1000,"p75":1000,"p90":1000,"p99":{p99_us},"p999":{p99_us},"max":{p99_us},'
            '"mean":1000.0,"stdev":0.0},"errors":{"connect":0,"read":0,"write":0,"timeout":'
            + str(timeouts)
            + ',"status":0}}\n'
            f"SERVERBENCH-WRK-HIST {{{hist}}}\n"
        )

    fast = printed(100, 2000, '"1000":99,"2000":1', 1)
    slow = printed(100, 50000, '"50000":100', 2)
    report = merged([parse_report(fast), parse_report(slow)], [parse_histogram(fast), parse_histogram(slow)])
    assert report.requests == 200 and report.bytes == 2000 and report.errors["timeout"] == 3
    assert report.latency_ms["p99"] == 50.0 and report.latency_ms["p50"] == 2.0


def test_a_run_that_printed_no_histogram_is_a_generator_error():
    """Without its histogram line a host's run cannot be merged: a GeneratorError saying what was printed."""
    from serverbench.drivers.wrk import parse_histogram
    from serverbench.errors import GeneratorError

    with pytest.raises(GeneratorError, match="0 histogram lines"):
        parse_histogram("SERVERBENCH-WRK {}\n")


def test_wrk_sized_to_a_queued_cell_times_out_after_its_run_and_twice_the_queue():
    """meinheld on /upstream at 48 connections waits 4.8 s a request: wrk's run of 7 s (no lead-in, no trail, whatever
    the caller's warm-up) times out at 7 + 2 x 4.8 -> 17 s, its threads and load hosts kept."""
    from serverbench.catalog.variants import registry
    from serverbench.catalog.workloads import WORKLOADS
    from serverbench.drivers.base import CellLoad

    places = ("load1",)  # a stand-in: the driver only keeps it
    load = CellLoad(
        registry()["meinheld"], WORKLOADS["upstream"], LoadShape(48, 7), warmup_s=2, warm=True, min_lead_s=30
    )
    sized = WrkDriver(threads=3, places=places).sized(load)
    assert (sized.timeout_s, sized.threads, sized.places) == (17, 3, places)


def test_wrk_sized_to_a_cell_without_a_queue_keeps_the_default_timeout_and_is_itself_when_it_has_it():
    """No designed queue (aiohttp), a URL mix (the site) or a server the catalog does not describe: 5 s; a wrk with
    it is returned as it is, one with another timeout is given 5 s."""
    from serverbench.catalog.variants import registry
    from serverbench.catalog.workloads import WORKLOADS
    from serverbench.drivers.base import CellLoad

    wrk = WrkDriver()
    for variant, workload in (
        (registry()["aiohttp"], "upstream"),
        (registry()["meinheld"], "site"),
        (None, "upstream"),
    ):
        load = CellLoad(variant, WORKLOADS[workload], LoadShape(64, 5), warmup_s=1)
        assert wrk.sized(load) is wrk
        assert WrkDriver(timeout_s=9).sized(load).timeout_s == 5
