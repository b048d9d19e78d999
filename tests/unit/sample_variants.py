"""A made-up variant for the tests of the variant table and of what a variant needs to start (no server starts)."""

from __future__ import annotations

from serverbench.catalog.variants import Variant


def variant(**changes) -> Variant:
    """A gunicorn-like WSGI variant named x-server, with ``changes`` applied."""
    base = dict(
        name="x-server",
        server="gunicorn",
        worker="sync",
        interface="wsgi",
        command=("{python}", "-b", "{host}:{port}", "{target}"),
        requires=(),
        install="pip install x",
    )
    base.update(changes)
    return Variant(**base)
