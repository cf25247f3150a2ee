"""A worker process for the crash tests: acquires a key and creates a task under durable
operation ids, prints what it got as one JSON line, then waits (to be killed, or for SIGTERM)."""

from __future__ import annotations

import json
import signal
import sys
import threading

from leasehold import FileIdempotencyStore, Leasehold


def main() -> int:
    base_url, store_dir, space_id, scope_id = sys.argv[1:5]
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    lh = Leasehold(base_url=base_url, api_key="lh_test_admin", idempotency_store=FileIdempotencyStore(store_dir), session="crash-worker")
    try:
        lease = lh.space(space_id).run(scope_id, holder="crash-worker").claim("job").acquire(operation_id="acquire-job")
        task = lh.tasks.create("exactly once", operation_id="create-task")
        print(json.dumps({"claimId": lease.claim_id, "fence": lease.fence, "taskId": task["id"]}), flush=True)
        stop.wait(120)
    finally:
        lh.close()  # on SIGTERM: releases the lease before exiting
    return 0


if __name__ == "__main__":
    sys.exit(main())
