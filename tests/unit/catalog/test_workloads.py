"""The workloads as data (catalog.workloads): each one's endpoints, request and backends, and the book site's mix."""

from serverbench.catalog.contract import ENDPOINTS
from serverbench.catalog.userapp import endpoint
from serverbench.catalog.workloads import SITE_MIX, WORKLOADS, Workload


def test_site_mix_is_about_thirty_urls_of_every_kind():
    """The site workload sends ~30 URLs: pages, API calls, images and static files."""
    paths = [p for p, _ in SITE_MIX]
    assert 25 <= len(paths) <= 35 and len(set(paths)) == len(paths)
    for part in ("/site/search?", "/site/api/", "/site/covers/", "/site/thumbs/", "/site/static/"):
        assert any(p.startswith(part) for p in paths), part
    assert WORKLOADS["site"].mix == SITE_MIX


def test_each_workload_is_filed_under_its_name_and_names_endpoints_of_the_contract():
    """WORKLOADS is keyed by each workload's own name; its endpoint and the ones it also verifies are the contract's."""
    assert all(key == w.name for key, w in WORKLOADS.items())
    for w in WORKLOADS.values():
        assert {w.endpoint, *w.also_verify} <= set(ENDPOINTS), w.name
        assert w.path == ENDPOINTS[w.endpoint].path and w.request is None, w.name


def test_a_workload_checks_its_endpoint_then_the_ones_it_also_verifies_and_needs_their_backends_once():
    """specs: the workload's endpoint first, then also_verify in order; backends: each one named once, in the order
    they first appear."""
    site = WORKLOADS["site"]
    assert [e.name for e in site.specs] == ["site-search", *site.also_verify]
    assert WORKLOADS["events-1k"].backends == ("mongo",) and WORKLOADS["json"].backends == ()
    both = Workload("both", "redis", "-", also_verify=("mongo-small", "redis", "mongo-big", "upstream"))
    assert both.backends == ("redis", "mongo", "upstream")


def test_a_users_endpoint_replaces_the_contracts_and_sends_its_own_request():
    """A workload with its own endpoint checks, requests and calls only that one, even one named like a contract
    endpoint; a plain GET of its own sends none."""
    post = endpoint("create", "/api/items", method="POST", body='{"name": "x"}', headers={"X-A": "1"})
    own = Workload("create", "create", "-", own=post)
    assert (own.spec, own.specs, own.path, own.backends) == (post, (post,), "/api/items", ())
    assert (own.request.method, own.request.body, own.request.headers) == ("POST", b'{"name": "x"}', (("X-A", "1"),))
    assert Workload("home", "home", "-", own=endpoint("home", "/")).request is None
    assert Workload("json", "json", "-", own=endpoint("json", "/mine")).path == "/mine"  # named like the contract's


def test_the_site_mix_weighs_each_kind_of_url_as_the_bookshop_visitors_tasks_do():
    """Per kind of URL, SITE_MIX's weights add up to the bookshop locustfile's task weights (21 searches, 10 API calls,
    36 thumbnails, 6 covers, 5 CSS, 5 JS), plus 2 for /json, which the locustfile does not send."""
    kinds = {"/site/search": 0, "/site/api/": 0, "/site/thumbs/": 0, "/site/covers/": 0, "/site/static/site.css": 0}
    kinds |= {"/site/static/site.js": 0, "/json": 0}
    for path, weight in SITE_MIX:
        (kind,) = [k for k in kinds if path.startswith(k)]
        kinds[kind] += weight
    assert list(kinds.values()) == [21, 10, 36, 6, 5, 5, 2]
