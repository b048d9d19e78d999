"""The book site's visitor (locustfiles.bookshop): its tasks, think time and answer checks, read in a child process
(importing locust monkey-patches the interpreter with gevent); nothing here sends a request."""

import textwrap
from pathlib import Path

import pytest

from serverbench.drivers.locust import BOOKSHOP
from tests.unit.child_probe import child_probe

ROOT = Path(__file__).resolve().parents[3]

# What the bookshop locustfile holds and what its checks say of the real site's answers, gathered in a child process.
PROBE = textwrap.dedent("""
    import importlib.util, json, os, sys
    from collections import Counter

    out = {}
    spec = importlib.util.spec_from_file_location("bookshop", sys.argv[1])
    shop = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shop)
    out["weights"] = dict(Counter(t.__name__ for t in shop.Visitor.tasks))
    out["wait"] = shop.Visitor.wait_time(None)
    out["think"] = {}
    for raw in ("", "0.25", "abc", "-1", "nan"):
        os.environ[shop.WAIT_ENV] = raw
        try:
            out["think"][raw] = shop.think_time()
        except ValueError as exc:
            out["think"][raw] = "ValueError: " + str(exc)

    # The locustfile's checks against the real site's answers (apps/sitedata.py), and wrong ones.
    sys.path.insert(0, sys.argv[2])
    import sitedata
    right = []
    for word in shop.WORDS:
        for page in (1, 2, 3):
            right.append(shop.problem(200, "text/html; charset=utf-8", sitedata.search_page(word, page), "text/html",
                                      shop.has(f"<h1>Results for {word}, page {page}</h1>".encode())))
        right.append(shop.problem(200, "application/json", sitedata.books_json(word), "application/json",
                                  shop.books_about(word)))
    for n in shop.BOOKS:
        right.append(shop.problem(200, "image/jpeg", sitedata.cover(n), "image/jpeg", shop.image(shop.COVER_BYTES)))
        right.append(shop.problem(200, "image/jpeg", sitedata.thumb(n), "image/jpeg", shop.image(shop.THUMB_BYTES)))
    for name, needle in (("site.css", b"font-family"), ("site.js", b"function show1")):
        ctype, body = sitedata.static(name)
        right.append(shop.problem(200, ctype, body, ctype, shop.has(needle)))
    out["right"] = right
    out["wrong"] = [
        shop.problem(404, "text/html", b"", "text/html", shop.has(b"x")),
        shop.problem(200, "text/html", b"{}", "application/json", shop.books_about("python")),
        shop.problem(200, "application/json", sitedata.books_json("redis"), "application/json",
                     shop.books_about("python")),
        shop.problem(200, "image/jpeg", sitedata.thumb(1), "image/jpeg", shop.image(shop.COVER_BYTES)),
        shop.problem(200, "text/css", b"body{}", "text/css", shop.has(b"font-family")),
    ]
    out["edge"] = {
        "no type": shop.problem(200, None, b"x", "text/html", shop.has(b"x")),
        "type in capitals with a charset": shop.problem(200, "Text/HTML; charset=utf-8", b"x", "text/html",
                                                        shop.has(b"x")),
        "no body": shop.problem(200, "text/html", None, "text/html", shop.has(b"x")),
        "the second needle": shop.has(b"a", b"b")(b"a"),
        "not json": shop.books_about("python")(b"<html>"),
        "no book": shop.books_about("python")(b"[]"),
        "not a list": shop.books_about("python")(b'{"title": "python"}'),
        "a jpeg of the size": shop.image(4)(b"\\xff\\xd8ab"),
        "a gif of the size": shop.image(4)(b"GIF8"),
    }
    print("PROBE " + json.dumps(out))
""")


@pytest.fixture(scope="module")
def probe():
    """What the bookshop locustfile holds: its tasks' weights, its wait, its think times and its checks' verdicts."""
    return child_probe(PROBE, str(BOOKSHOP), str(ROOT / "apps"))


def test_locustfile_visitor_tasks_and_wait(probe):
    """Visitor's task weights follow SITE_MIX; it waits 0 s unless SERVERBENCH_LOCUST_WAIT says otherwise."""
    assert probe["weights"] == {
        "search": 21,
        "open_book": 10,
        "thumbnail": 36,
        "cover": 6,
        "stylesheet": 5,
        "script": 5,
    }
    assert probe["wait"] == 0
    assert probe["think"][""] == 0.0 and probe["think"]["0.25"] == 0.25
    assert probe["think"]["abc"].startswith("ValueError: SERVERBENCH_LOCUST_WAIT must be a number")
    assert probe["think"]["-1"].startswith("ValueError: SERVERBENCH_LOCUST_WAIT must be >= 0")


def test_locustfile_checks_accept_the_site_and_refuse_wrong_answers(probe):
    """Every answer the real site gives passes the locustfile's checks; wrong ones each name the problem."""
    assert probe["right"] == [None] * len(probe["right"])
    assert probe["wrong"][0] == "HTTP status 404, expected 200"
    assert probe["wrong"][1].startswith("Content-Type 'text/html'")
    assert "does not match 'python'" in probe["wrong"][2]
    assert probe["wrong"][3].startswith("expected a 30000-byte JPEG, got 3000 bytes")
    assert probe["wrong"][4] == "body lacks b'font-family'"


def test_a_think_time_of_nan_seconds_is_refused(probe):
    """SERVERBENCH_LOCUST_WAIT=nan is refused as not >= 0 seconds, naming the variable and the value given."""
    assert probe["think"]["nan"] == "ValueError: SERVERBENCH_LOCUST_WAIT must be >= 0 seconds, got 'nan'"


def test_each_check_names_what_is_wrong_and_reads_the_content_type_loosely(probe):
    """A missing Content-Type or body, the first needle missing, a body not JSON, an empty or non-list answer and an
    image of the right size not starting as a JPEG are each named; a type in capitals with a charset passes."""
    assert probe["edge"] == {
        "no type": "Content-Type None, expected 'text/html'",
        "type in capitals with a charset": None,
        "no body": "body lacks b'x'",
        "the second needle": "body lacks b'b'",
        "not json": "body is not JSON: b'<html>'",
        "no book": "expected a non-empty list of books for 'python', got b'[]'",
        "not a list": "expected a non-empty list of books for 'python', got b'{\"title\": \"python\"}'",
        "a jpeg of the size": None,
        "a gif of the size": "expected a 4-byte JPEG, got 4 bytes starting b'GIF8'",
    }
