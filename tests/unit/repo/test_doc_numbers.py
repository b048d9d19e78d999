"""The numbers the code owns, where the user pages (README.md, docs/*.md; not docs/lab/) state them: each is read
here from where the program reads it (a module constant, pyproject.toml, the option table the parser resolves), so
a constant that moves without its page fails naming the page and the line."""

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import tomllib

from serverbench.catalog import timeouts, windows
from serverbench.catalog.apps import APPS
from serverbench.catalog.variants import VARIANTS
from serverbench.catalog.workloads import WORKLOADS
from serverbench.config.options import OPTIONS_BY_NAME
from serverbench.drivers import oha
from serverbench.judge import drift, memory
from serverbench.processes import readiness

ROOT = Path(__file__).resolve().parents[3]
USER_PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@dataclass(frozen=True)
class Claim:
    """A number a page states (the pattern's first group) and the code's value of it."""

    what: str
    pattern: str
    value: Callable[[], float]


CLAIMS = (
    Claim("oha's trail (drivers/oha.py TRAIL_S)", r"`TRAIL_S`[^)]*?, ([\d.]+) s\b", lambda: oha.TRAIL_S),
    Claim("oha's lead-in (drivers/oha.py LEAD_S)", r"`LEAD_S`[^)]*?, ([\d.]+) s\b", lambda: oha.LEAD_S),
    Claim(
        "an unevenly serving server's window (catalog/windows.py ANY_ORDER)",
        r"\*\*([\d.]+) × Q\*\* on a server that serves unevenly",
        lambda: windows.ANY_ORDER.window,
    ),
    Claim(
        "an in-order pool's window (catalog/windows.py IN_ORDER)",
        r"\*\*([\d.]+) × Q\*\* on a pool that serves in order",
        lambda: windows.IN_ORDER.window,
    ),
    Claim(
        "an unevenly serving server's lead-in (catalog/windows.py ANY_ORDER)",
        r"lead-in of at least \*\*([\d.]+) × Q\*\*",
        lambda: windows.ANY_ORDER.lead,
    ),
    Claim(
        "an in-order pool's lead-in (catalog/windows.py IN_ORDER)",
        r"lead-in of \*\*([\d.]+) × Q\*\* on a pool",
        lambda: windows.IN_ORDER.lead,
    ),
    Claim(
        "the longest window (catalog/windows.py MAX_WINDOW_S)",
        r"window of at most ([\d.]+) s",
        lambda: windows.MAX_WINDOW_S,
    ),
    Claim(
        "the timeout's margin (catalog/timeouts.py QUEUE_MARGIN)",
        r"\+ \*\*([\d.]+) × Q\*\*",
        lambda: timeouts.QUEUE_MARGIN,
    ),
    Claim(
        "the shortest timeout (catalog/timeouts.py DEFAULT_TIMEOUT_S)",
        r"never below \*\*(\d+) s\*\*",
        lambda: timeouts.DEFAULT_TIMEOUT_S,
    ),
    Claim(
        "the longest timeout (catalog/timeouts.py MAX_TIMEOUT_S)",
        r"never above \*\*(\d+) s\*\*",
        lambda: timeouts.MAX_TIMEOUT_S,
    ),
    Claim(
        "the memory-growth flag's samples (judge/memory.py MIN_SAMPLES)",
        r"at least (\d+) memory samples",
        lambda: memory.MIN_SAMPLES,
    ),
    Claim(
        "the memory-growth flag's span (judge/memory.py SOAK_SECONDS)",
        r"memory samples spanning ([\d.]+) s",
        lambda: memory.SOAK_SECONDS,
    ),
    Claim(
        "the variants (catalog/variants.py VARIANTS)",
        r"\b(?:all|every one of the) (\d+) variants\b",
        lambda: len(VARIANTS),
    ),
    Claim("the apps (catalog/apps.py APPS)", r"\b(?:all|every one of the) (\d+) apps\b", lambda: len(APPS)),
    Claim(
        "a broken readiness answer's grace (processes/readiness.py GRACE_S)",
        r"not after `perf_start_timeout`: after ([\d.]+) s and",
        lambda: readiness.GRACE_S,
    ),
    Claim(
        "a broken readiness answer's count (processes/readiness.py MIN_ANSWERS)",
        r"not after `perf_start_timeout`: after [\d.]+ s and (\w+) such answers",
        lambda: readiness.MIN_ANSWERS,
    ),
    Claim(
        "the size drift's ratio (judge/drift.py RATIO)",
        r"differ across the run's cells by more than (\d+)% and",
        lambda: round((drift.RATIO - 1) * 100),
    ),
    Claim(
        "the size drift's least difference (judge/drift.py MIN_BYTES)",
        r"differ across the run's cells by more than \d+% and (\d+) bytes",
        lambda: drift.MIN_BYTES,
    ),
)
WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
# Every multiple of the designed queue Q that the code sizes by: a page naming another is stale.
QUEUE_MULTIPLES = {
    *(getattr(q, part) for q in (windows.ANY_ORDER, windows.IN_ORDER) for part in ("lead", "window", "trail")),
    timeouts.QUEUE_MARGIN,
}
# A worked example of the sizing: `variant` (Q = q s): lead-in L s, window W s, trail T s (/upstream, 64 connections).
EXAMPLE = r"`([\w.-]+)` \(Q = ([\d.]+) s\): lead-in ([\d.]+) s, window ([\d.]+) s, trail ([\d.]+) s"
# The gate's shared options, as gate.md states them: `--duration` (default 1 here), `--warmup` (1), `--connections`
# (one count, 32), `--max-error-rate` (0.01).
GATE_DEFAULT = r"`--(duration|warmup|connections|max-error-rate)` \((?:default |one count, )?([\d.]+)[ )]"
INI = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]


def sized(name: str) -> tuple[str, ...]:
    """(Q, lead-in, window, trail) of ``name`` on /upstream at 64 connections with the default --perf-duration and
    --perf-warmup and oha's trail, as the page writes them."""
    variant, upstream = next(v for v in VARIANTS if v.name == name), WORKLOADS["upstream"]
    duration, warmup = OPTIONS_BY_NAME["perf_duration"].default, OPTIONS_BY_NAME["perf_warmup"].default
    return (
        f"{windows.cell_queue_s(variant, upstream, 64):g}",
        f"{windows.cell_lead_s(variant, upstream, 64, warmup):g}",
        f"{windows.cell_window_s(variant, upstream, 64, duration):g}",
        f"{windows.cell_trail_s(variant, upstream, 64, oha.TRAIL_S):g}",
    )


def stale_lines(pages: list[Path]) -> tuple[list[str], set[str]]:
    """Every line of ``pages`` whose stated number differs from the code's, and the claims some line states."""
    wrong, seen = [], set()
    for page in pages:
        name = page.relative_to(ROOT) if page.is_relative_to(ROOT) else page.name
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for claim in CLAIMS:
                for said in re.findall(claim.pattern, line):
                    seen.add(claim.what)
                    if float(WORDS.get(said, said)) != float(claim.value()):
                        wrong.append(f"{name}:{number}: {claim.what} is {claim.value():g}, the page says {said}")
            for said in re.findall(r"\b(\d+(?:\.\d+)?) × Q\b", line):
                if float(said) not in QUEUE_MULTIPLES:
                    wrong.append(
                        f"{name}:{number}: {said} × Q is no multiple the code sizes by ({sorted(QUEUE_MULTIPLES)})"
                    )
            for example in re.findall(EXAMPLE, line):
                if example[1:] != sized(example[0]):
                    wrong.append(
                        f"{name}:{number}: `{example[0]}` on /upstream at 64 connections is {sized(example[0])}"
                    )
            for key, said in re.findall(r'`(perf_\w+) = "([^"]*)"`', line):  # this repository's ini settings
                if INI.get(key) != said:
                    wrong.append(
                        f"{name}:{number}: pyproject.toml sets {key} = {INI.get(key)!r}, the page says {said!r}"
                    )
            for flag, said in re.findall(GATE_DEFAULT, line):  # the gate's own defaults, as the gate reads them
                value = OPTIONS_BY_NAME["perf_" + flag.replace("-", "_")].default_in("gate")
                value = value[0] if isinstance(value, tuple) else value
                if float(said) != float(value):
                    wrong.append(f"{name}:{number}: the gate's --{flag} defaults to {value}, the page says {said}")
            for flag, said in re.findall(r"`(--perf-[\w-]+)`(?: seconds)? \(([\w.]+) by default\b", line):
                option = OPTIONS_BY_NAME[flag.removeprefix("--").replace("-", "_")]
                if option.parse(said) != option.default:
                    wrong.append(f"{name}:{number}: {flag}'s default is {option.default!r}, the page says {said}")
    return wrong, seen


def test_every_number_a_user_page_states_is_the_codes():
    """Each trail, lead-in, window, count, ini setting and default the user pages state is the code's value."""
    wrong, _ = stale_lines(USER_PAGES)
    assert not wrong, "stale numbers (edit the page, or the code):\n" + "\n".join(wrong)


def test_every_claim_is_stated_somewhere():
    """Each claim matches a line of some user page, so none is checked against nothing."""
    _, seen = stale_lines(USER_PAGES)
    unseen = [c.what for c in CLAIMS if c.what not in seen]
    assert not unseen, f"no user page states {unseen}: drop the claim, or the page lost the sentence"


def test_a_stale_page_fails_naming_its_line(tmp_path):
    """A page that says the old 5 × Q window, a 1 s trail and 49 variants fails on each of those lines."""
    page = tmp_path / "stale.md"
    page.write_text(
        "intro\n(`TRAIL_S`, 1 s)\nthe window lasts **5 × Q** on a server that serves unevenly\nall 49 variants\n",
        encoding="utf-8",
    )
    wrong, _ = stale_lines([page])
    assert [w.split(": ", 1)[0] for w in wrong] == ["stale.md:2", "stale.md:3", "stale.md:3", "stale.md:4"]
