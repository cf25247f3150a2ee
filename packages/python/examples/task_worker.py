"""Tasks through the blocking client: create a few, work each under a renewed claim (the guarded
write checks the fence), and list them back. Run it against a server:
``LEASEHOLD_URL=http://127.0.0.1:4010 python3 task_worker.py``."""

from __future__ import annotations

import os

from leasehold import Leasehold, TaskWorkContext

BASE_URL = os.environ.get("LEASEHOLD_URL", "http://127.0.0.1:4010")
API_KEY = os.environ.get("LEASEHOLD_API_KEY", "lh_test_admin")
highest_fence: dict[int, int] = {}  # stands in for your database: the last fence each row saw


def rebuild(ctx: TaskWorkContext) -> str:
    """The work: a write the resource accepts only from the newest holder of the task's claim."""
    fence = ctx.lease.fence or 0
    if highest_fence.get(ctx.task["id"], 0) > fence:
        raise RuntimeError(f"stale write to task {ctx.task['id']} (fence {fence})")
    highest_fence[ctx.task["id"]] = fence
    ctx.lease.raise_if_lost()  # long work checks before each step that must not run unowned
    return f"rebuilt under fence {fence}"


def main() -> None:
    """Creates three tasks, works each to Done with a note, prints what the list says."""
    with Leasehold(base_url=BASE_URL, api_key=API_KEY) as lh:
        ids = [lh.tasks.create(f"rebuild shard {shard}")["id"] for shard in range(3)]
        for task_id in ids:
            print(lh.tasks.work(task_id, rebuild, note=lambda result: result))
        done = {task["id"] for task in lh.tasks.list(status="Done")}
        print("done:", all(task_id in done for task_id in ids))


if __name__ == "__main__":
    main()
