"""pytest_plugin.order: each cell's perf tests together, so its server starts once; other tests keep their places."""

from __future__ import annotations

from types import SimpleNamespace

from serverbench.pytest_plugin.order import cell_of, grouped_by_cell


def _item(name: str, variant: str | None = None, app: str = "flask"):
    params = {} if variant is None else {"perf_variant": variant, "perf_app": app, "perf_workload": name}
    if name == "site":
        params["perf_shape"] = SimpleNamespace(workers=0)  # a locust scenario
    return SimpleNamespace(name=name, callspec=SimpleNamespace(params=params))


def test_each_cells_tests_run_together_where_its_first_test_stood():
    """test_locust's site tests come first in collection, test_throughput's after: grouped by cell, each cell's
    throughput tests run first and its locust scenario last, the cells in their first-seen order."""
    items = [
        _item("site", "a"),
        _item("site", "b"),
        _item("json", "a"),
        _item("redis", "a"),
        _item("json", "b"),
    ]
    order = [(i.callspec.params["perf_variant"], i.name) for i in grouped_by_cell(items)]
    assert order == [("a", "json"), ("a", "redis"), ("a", "site"), ("b", "json"), ("b", "site")]


def test_other_tests_keep_their_places_and_a_cell_is_its_variant_and_app():
    """A test with no perf parameters stays where it was; the same variant with another app is another cell."""
    plain = _item("test_unit")
    items = [plain, _item("json", "a", "flask"), _item("json", "a", "django"), _item("redis", "a", "flask")]
    out = grouped_by_cell(items)
    assert out[0] is plain
    assert [cell_of(i) for i in out[1:]] == [("a", "flask"), ("a", "flask"), ("a", "django")]
    assert cell_of(plain) is None
    assert grouped_by_cell([]) == []
