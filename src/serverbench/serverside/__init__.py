"""What runs inside a server's process, not in the harness: ``launch`` starts servers that have no command
line of their own (``python -m serverbench.serverside.launch``), ``gunicorn_conf`` holds the settings every
gunicorn variant loads, ``appentry`` loads a user's app that a server cannot load itself.

May import: the standard library, the servers' own packages, and ``catalog`` (names shared with the
harness); nothing that measures or judges.  The variant table names these modules as strings.
"""
