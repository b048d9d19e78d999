"""Start the backing services by hand, seeded, for developing an app against them.

    python -m serverbench.services      # prints the SERVERBENCH_* variables; Ctrl-C stops everything
"""
from __future__ import annotations

import signal
import sys

from .backends.redis import start_redis
from .backends.mongo import start_mongo
from .backends.upstream import start_upstream


def main() -> int:
    started = []
    try:
        redis = start_redis()
        started.append(redis)
        mongo = start_mongo()
        started.append(mongo)
        upstream = start_upstream()
        started.append(upstream)
        print(f"export SERVERBENCH_REDIS_URL='{redis.url}'")
        print(f"export SERVERBENCH_MONGO_URL='{mongo.url}'   # {mongo.kind}, pid {mongo.pid}")
        print(f"export SERVERBENCH_UPSTREAM_URL='{upstream.url}'", flush=True)
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    finally:
        for service in reversed(started):
            service.stop()
    return 0


if __name__ == "__main__":
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    sys.exit(main())
