"""node-cluster-w2 (the Node.js app under Node's cluster module) honours the same contract as every app, from
two worker processes; node-http's conformance is in test_conformance.py (the node app's reference server)."""

import pytest

from serverbench.backends.mongo import start_mongo
from serverbench.backends.redis import start_redis
from serverbench.backends.upstream import start_upstream
from serverbench.catalog.apps import APPS
from serverbench.catalog.contract import ENDPOINTS
from serverbench.catalog.variants import registry
from serverbench.measure.serving.servers import start_variant, unavailable_reason
from serverbench.measure.serving.verify import verify
from tests.integration.processes import settled_tree

pytestmark = pytest.mark.usefixtures("no_leaks")


def test_node_cluster_serves_the_contract_from_two_workers(apps_dir):
    """Every endpoint answers as the contract says (headers included), and the primary runs exactly 2 workers."""
    variant, app = registry()["node-cluster-w2"], APPS["node"]
    reason = unavailable_reason(variant, app, apps_dir)
    assert reason is None, f"the project's test environment must have node and its packages installed: {reason}"
    started = []
    try:
        for start in (start_redis, start_mongo, start_upstream):
            started.append(start())
        env = dict(
            zip(
                ("SERVERBENCH_REDIS_URL", "SERVERBENCH_MONGO_URL", "SERVERBENCH_UPSTREAM_URL"), (s.url for s in started)
            )
        )
        server = start_variant(variant, app=app, apps_dir=apps_dir, env=env)
        try:
            workers = settled_tree(server.pid, 3)[1:]
            assert [w.name() for w in workers] == ["node", "node"]
            verify(server.url, [ENDPOINTS[e] for e in app.endpoints], f"{variant.name}/{app.name}", headers=True)
        finally:
            server.stop()
    finally:
        for service in reversed(started):
            service.stop()
