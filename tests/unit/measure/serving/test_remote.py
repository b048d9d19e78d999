"""A server on the server host (measure.serving.remote): its paths as that host names them."""

from __future__ import annotations

from serverbench.hosts.places import PACKAGE
from serverbench.measure.serving.remote import there


def test_the_package_and_the_project_are_named_as_the_server_host_names_them():
    """This serverbench package's folder becomes the host's, this project's folder its checkout; others stay."""
    assert there(PACKAGE + "/apps/x.py", "/opt/sb/serverbench", "/src/p", "/srv/p") == "/opt/sb/serverbench/apps/x.py"
    assert there("/src/p/apps", None, "/src/p", "/srv/p") == "/srv/p/apps"
    assert there("/src/p", None, "/src/p", "/srv/p") == "/srv/p"
    assert there("/src/project/apps", None, "/src/p", "/srv/p") == "/src/project/apps"  # not under /src/p
    assert there("/src/p/apps", None, "/src/p", None) == "/src/p/apps"  # no checkout given: the same path there
