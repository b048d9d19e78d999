"""gunicorn settings every gunicorn variant loads (``-c python:serverbench.gunicorn_conf``).

A config module instead of flags because gunicorn ignores settings it does not know here,
while an unknown flag is fatal: gunicorn >= 25 opens a control socket in ~/.gunicorn unless
told not to, and the gunicorn that installs on PyPy 3.9 (23.x) has no such setting.
"""
control_socket_disable = True
