"""Tasks and spools against the real server: claim/work/complete, consume with backoff, max
deliveries and dead letters; their leases ride the same batch heartbeat."""

from __future__ import annotations

import json
import threading
import uuid

import pytest

from conftest import Harness
from leasehold import ConflictError, DeadLetter, SpoolMessage, TaskWorkContext


def test_work_claims_renews_and_completes(h: Harness) -> None:
    task = h.lh.tasks.create("rebuild the index")
    fences: list[int] = []

    def work(ctx: TaskWorkContext) -> dict[str, bool]:
        fences.append(ctx.lease.fence or 0)
        assert ctx.task["status"] == "InProgress"  # marked before fn runs
        return {"ok": True}

    result = h.lh.tasks.work(task["id"], work)
    assert result == {"ok": True} and fences[0] >= 1
    done, _ = h.lh.tasks.get(task["id"])
    assert done["status"] == "Done" and done["result"] == {"ok": True}


def test_a_claimed_task_refuses_a_second_claim(h: Harness) -> None:
    task = h.lh.tasks.create("one at a time")
    with h.lh.tasks.claim(task["id"]) as lease:
        with pytest.raises(ConflictError) as caught:
            h.lh.tasks.claim(task["id"])
        assert caught.value.code == "task_claimed"
        assert lease.is_held
    assert h.lh.tasks.get(task["id"])[0]["claim"] is None


def test_list_walks_every_page(h: Harness) -> None:
    ids = {h.lh.tasks.create(f"page {i}")["id"] for i in range(5)}
    seen = {t["id"] for t in h.lh.tasks.list(limit=2)}
    assert ids <= seen


def test_an_operator_revokes_a_claim_and_requeues_a_stalled_task(h: Harness) -> None:
    task = h.lh.tasks.create("stuck")
    lease = h.lh.tasks.claim(task["id"])
    h.lh.tasks.update(task["id"], {"status": "InProgress"}, claim=lease)
    revoked = h.lh.tasks.revoke_claim(task["id"])
    assert revoked["claim"] is None and revoked["stalled"] is True
    assert revoked["lastClaim"] is not None and revoked["lastClaim"]["outcome"] == "revoked"
    assert task["id"] in {t["id"] for t in h.lh.tasks.list(claimable=True)}
    with pytest.raises(ConflictError) as caught:
        h.lh.tasks.revoke_claim(task["id"])
    assert caught.value.code == "claim_not_held"
    requeued = h.lh.tasks.requeue(task["id"])
    assert requeued["status"] == "Todo" and requeued["attempts"] == 0 and requeued["stalled"] is False
    assert task["id"] in {t["id"] for t in h.lh.tasks.list(status="Todo", claimable=True)}


def test_task_space_and_spool_leases_share_one_heartbeat(h: Harness) -> None:
    spool = h.lh.spool("s" + uuid.uuid4().hex[:10])
    spool.create()
    queue = spool.queue("jobs")
    queue.put(lease_timeout=60)
    queue.send({"n": 1})
    message = queue.receive()
    assert isinstance(message, SpoolMessage)
    task_lease = h.lh.tasks.claim(h.lh.tasks.create("t")["id"])
    space_lease = h.run().claim("k").acquire()
    h.advance(11)
    h.settle(lambda: h.lh.renewal.core.stats.heartbeats == 1 and not h.lh.renewal.core.in_flight)
    body = json.loads(h.recorder.of("/v1/claims/heartbeat")[-1].content)
    assert sorted(body["claimIds"]) == sorted([message.claim_id, task_lease.claim_id, space_lease.claim_id])
    assert message.is_held and task_lease.is_held and space_lease.is_held
    message.ack()


def test_consume_backs_off_then_dead_letters(h: Harness) -> None:
    spool = h.lh.spool("s" + uuid.uuid4().hex[:10])
    spool.create()
    queue, dead = spool.queue("jobs"), spool.queue("dead")
    queue.put(lease_timeout=60)
    dead.put(lease_timeout=60)
    queue.send({"poison": True})
    queue.send({"fine": True})
    handled: list[object] = []
    delays: list[int] = []

    def handler(message: SpoolMessage) -> None:
        if message.body.get("poison"):
            raise ValueError("cannot handle")
        handled.append(message.body)

    def backoff(delivery: int) -> int:
        delays.append(delivery)
        return 0  # redeliver at once: the test does not wait for the backoff

    def on_error(error: BaseException, message: SpoolMessage) -> None:
        errors.append(message.delivery_count)

    stop = threading.Event()
    errors: list[int] = []
    count = queue.consume(
        handler, stop=stop, max_messages=4, max_deliveries=3, dead_letter=DeadLetter(spool.name, "dead"),
        backoff=backoff, poll_interval=0.01, on_error=on_error,
    )
    assert count == 4 and handled == [{"fine": True}]
    assert errors == [1, 2, 3] and delays == [1, 2]  # nacked twice with backoff, then dead-lettered
    letter = dead.receive()
    assert letter is not None and letter.body == {"poison": True}
    letter.ack()
    assert queue.receive() is None
