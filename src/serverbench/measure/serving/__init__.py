"""A server to measure: ``servers`` (a variant started, the pool that keeps one running), ``verify`` (its answers
checked against the contract), ``bytecode`` (its Python compiled before it starts), and a user's app made ready:
``userapp`` and ``appinterface`` (what it serves), ``appsetup`` and ``reset`` (its data).  May import ``trees``."""
