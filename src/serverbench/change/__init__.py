"""A change's verdict in one step (``serverbench ci``): a pull request gated against its base, or a push's counted
cost against the commit before it, told as one comment, the step summary and the files a CI artifact keeps.

:mod:`.workflow` runs it: the event read (:mod:`.event`), the commits checked (:mod:`.commits`), the gate run
in-process on each variant (:mod:`.gated`) or ``pytest -m cost`` run on both commits (:mod:`.counted`), and every
outcome, an error among them, written out (:mod:`.outputs`, :mod:`.result`).
"""
