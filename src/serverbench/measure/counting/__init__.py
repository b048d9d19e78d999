"""A cell counted under valgrind: ``cost`` (one count), ``callgrind`` (the counter), ``sequential`` and ``workers`` (the
client and a pre-fork server's workers held still), ``marks``, ``systrace`` and ``clientmemory`` (what the window did
besides instructions), ``fixedpaths`` and ``isa`` (what the counted program sees), ``pytrace`` and ``tracer/`` (the
Python profile), ``bisect`` (one commit of a bisection counted).  May import ``serving`` and ``trees``."""
