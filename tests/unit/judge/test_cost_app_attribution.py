"""A cost failure always names the app's own functions (role app), even when others moved more.  Pure."""

from serverbench.judge.cost import TOP, attribute
from serverbench.records.cost import CostBaseline, CostRecord, FunctionCost


def _c(name, n, role="interpreter"):
    return FunctionCost("c", name, "libpython.so", "cpython", role, n)


def test_app_function_is_named_beyond_the_top_rows():
    """Eleven interpreter functions moved more than the user's view; the view still follows the top ten."""
    base_c = tuple(_c(f"f{i}", 1000.0) for i in range(TOP + 1))
    cand_c = tuple(_c(f"f{i}", 5000.0) for i in range(TOP + 1))
    view = FunctionCost("python", "list_notes", "notes.views", "notes", "app", 10.0)
    base = CostBaseline("k", 11000.0, {}, base_c, (view,), "t", python_per_request=1000.0)
    record = CostRecord(
        "n",
        "v",
        "a",
        "w",
        "/",
        10,
        550000,
        (),
        cand_c,
        {},
        1.0,
        python_functions=(FunctionCost("python", "list_notes", "notes.views", "notes", "app", 12.0),),
    )
    shifts = attribute(base, record)
    assert len(shifts) == TOP + 1
    assert shifts[-1].function == "list_notes" and shifts[-1].role == "app"
    assert all(s.role == "interpreter" for s in shifts[:TOP])
