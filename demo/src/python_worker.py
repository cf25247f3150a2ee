"""One Python worker process of the demo fleet (``pnpm demo --python N``): the Python SDK
(packages/python) doing what demo/src/worker.ts does with the TypeScript one, on the same space,
task list and queue. It talks to the fleet in JSON lines: WorkerMessage on stdout, FleetMessage
on stdin (demo/src/protocol.ts); its own log goes to stderr."""

from __future__ import annotations

import json
import os
import random
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "packages/python/src"))

import httpx  # noqa: E402

from leasehold import (  # noqa: E402
    ConflictError,
    Leasehold,
    LeaseholdError,
    LeaseLostError,
    PreconditionFailedError,
    SpoolMessage,
    TaskWorkContext,
    http_transport,
)
from leasehold._lease_state import LeaseState  # noqa: E402

config: dict[str, Any] = json.loads(sys.argv[1])
stop = threading.Event()
start = threading.Event()
out_lock = threading.Lock()
pending: dict[int, tuple[threading.Event, list[dict[str, Any]]]] = {}
pending_lock = threading.Lock()
next_call = [1]
rng = random.Random(config["seed"])
rng_lock = threading.Lock()
counts = {"retries": 0, "requests": 0}
latencies_ms: list[float] = []
errors: list[str] = []


def send(message: dict[str, Any]) -> None:
    """One WorkerMessage line to the fleet."""
    with out_lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def uniform() -> float:
    with rng_lock:
        return rng.random()


def shuffled(items: list[Any]) -> list[Any]:
    copy = list(items)
    with rng_lock:
        rng.shuffle(copy)
    return copy


def ledger(op: str, kind: str, item: str, fence: int = 0) -> dict[str, Any]:
    """A call to the fleet's fenced ledger, answered by id on stdin."""
    done = threading.Event()
    box: list[dict[str, Any]] = []
    with pending_lock:
        call = next_call[0]
        next_call[0] += 1
        pending[call] = (done, box)
    send({"type": "ledger", "id": call, "op": op, "kind": kind, "item": item, "fence": fence})
    done.wait()
    return box[0]


def read_commands() -> None:
    """Ledger answers and the fleet's commands (start, stop), one JSON line each."""
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "ledger":
            with pending_lock:
                waiter = pending.pop(message["id"], None)
            if waiter is not None:
                waiter[1].append(message)
                waiter[0].set()
        elif message["type"] == "start":
            start.set()
        elif message["type"] == "stop":
            stop.set()
            start.set()
    stop.set()  # the fleet went away
    start.set()


def work(kind: str, lease: LeaseState) -> None:
    """Simulated work that stops as soon as the lease guarding it is lost."""
    seconds = config["workMs"][kind] * (0.5 + uniform()) / 1000
    lease.lost.wait(seconds)
    lease.raise_if_lost()


def do_once(kind: str, item: str, lease: LeaseState) -> None:
    """Reconcile (show the fence, skip finished work), work, commit with the fence; each step
    that shows the fence only while the lease is still ours by the SDK's local deadline."""
    fence = lease.fence or 0
    lease.raise_if_lost()
    reconciled = ledger("begin", kind, item, fence)
    if reconciled.get("stale"):
        raise StaleWrite(f"stale fence {fence} for {kind} {item}")
    if reconciled.get("done"):
        return
    work(kind, lease)
    committed = ledger("commit", kind, item, fence)
    if committed.get("verdict") == "stale":
        raise StaleWrite(f"the store rejected a stale write for {kind} {item}")


class StaleWrite(Exception):
    """The guarded resource refused a fence: reported as an error of the run."""


def lost_of(error: BaseException) -> Optional[LeaseLostError]:
    seen: Optional[BaseException] = error
    while seen is not None:
        if isinstance(seen, LeaseLostError):
            return seen
        seen = seen.__cause__
    return None


def note_loss(kind: str, error: BaseException) -> bool:
    lost = lost_of(error)
    if lost is None:
        return False
    send({"type": "lost", "kind": kind, "reason": lost.reason})
    return True


def count_retry(seconds: float) -> None:
    counts["retries"] += 1
    stop.wait(seconds)


def on_request(request: httpx.Request) -> None:
    request.extensions["demo_started"] = time.perf_counter()


def on_response(response: httpx.Response) -> None:
    counts["requests"] += 1
    started = response.request.extensions.get("demo_started")
    if isinstance(started, float):
        latencies_ms.append((time.perf_counter() - started) * 1000)


lh = Leasehold(
    base_url=config["baseUrl"], api_key=config["apiKey"], session=f"sess_{config['workerId']}_{os.getpid()}",
    heartbeat_ttl=config["heartbeatTtlSeconds"], max_retries=6, timeout=10.0, sleep=count_retry,
    http_client=httpx.Client(
        timeout=10.0, transport=http_transport(), event_hooks={"request": [on_request], "response": [on_response]},
    ),
)


def guarded(kind: str, item: str, step: Callable[[], object], quiet: tuple[type[BaseException], ...] = ()) -> None:
    try:
        step()
    except quiet:
        pass
    except StaleWrite as error:
        errors.append(str(error))
    except (LeaseholdError, TimeoutError) as error:
        if stop.is_set() or note_loss(kind, error):
            return
        errors.append(f"{kind} {item}: {error}")


def task_loop() -> None:
    """Claims and works tasks until every task is Done; a 409 or 412 means another worker got there first."""
    open_ids: list[int] = shuffled(config["taskIds"])
    while open_ids and not stop.is_set():
        queue = list(open_ids)
        queue_lock = threading.Lock()
        left: list[int] = []

        def lane() -> None:
            while not stop.is_set():
                with queue_lock:
                    if not queue:
                        return
                    task_id = queue.pop(0)

                def one() -> None:
                    task, _ = lh.tasks.get(task_id)
                    if task["status"] == "Done":
                        return
                    left.append(task_id)
                    if task.get("claim"):
                        return

                    def body(ctx: TaskWorkContext) -> None:
                        do_once("task", str(task_id), ctx.lease)

                    lh.tasks.work(task_id, body, note=f"done by {config['workerId']}", stop=stop)

                guarded("task", str(task_id), one, (ConflictError, PreconditionFailedError))

        lanes = [threading.Thread(target=lane, daemon=True) for _ in range(config["taskConcurrency"])]
        for thread in lanes:
            thread.start()
        for thread in lanes:
            thread.join()
        open_ids = left
        if open_ids:
            stop.wait(0.25)


def key_loop() -> None:
    run = lh.space(config["spaceId"]).run(config["runId"], holder=config["workerId"])
    open_keys: list[str] = list(config["keys"])
    while open_keys and not stop.is_set():
        left: list[str] = []
        for key in shuffled(open_keys):
            if stop.is_set():
                return
            if ledger("peek", "key", key).get("done"):
                continue
            left.append(key)
            guarded("key", key, lambda: run.claim(key).run(lambda lease: do_once("key", key, lease), stop=stop))
        open_keys = left


def message_loop() -> None:
    def handle(message: SpoolMessage) -> None:
        try:
            do_once("message", message.message["id"], message)
        except LeaseLostError as error:
            note_loss("message", error)
            raise

    lh.spool(config["spool"]).queue(config["queue"]).consume(handle, stop=stop, poll_interval=0.1, on_error=lambda *_: None)


def main() -> None:
    threading.Thread(target=read_commands, daemon=True).start()
    send({"type": "ready"})
    start.wait()
    loops = [threading.Thread(target=loop, daemon=True) for loop in (task_loop, key_loop, message_loop, message_loop)]
    for thread in loops:
        thread.start()
    for thread in loops:
        thread.join()
    stop.wait()
    stats = lh.renewal.core.stats
    lh.close()
    send({
        "type": "report",
        "report": {
            "workerId": config["workerId"], "heartbeatsSent": stats.heartbeats, "leasesRenewed": stats.renewed,
            "lostByDetection": {"lost": stats.lost} if stats.lost else {}, "stalls": 0, "retries": counts["retries"],
            "requests": counts["requests"], "latenciesMs": latencies_ms, "errors": errors,
        },
    })


if __name__ == "__main__":
    try:
        main()
    except BaseException as crash:  # reported: the audit fails with it
        errors.append(f"worker crashed: {crash!r}")
        raise
