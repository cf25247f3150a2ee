"""A worker restarted with the crash-recovery setup — the same ``FileIdempotencyStore`` directory,
``session`` and ``operation_id`` — replays its acquire (issue 24). Restarted while the lease runs,
it gets the lease back (same claim, same fence) and keeps it; restarted after the lease ended
(expired, or released behind its back) its first call does not fail: the replay is dropped and
the call acquires afresh (a new claim, a larger fence). For space claims (blocking and asyncio),
task claims (``tasks.work``) and queue receives. A restart = the first client stopped without
releasing anything; time moves on the server's manual clock."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Callable

import pytest

from conftest import API_KEY, FakeClock, Harness
from leasehold import AsyncLeasehold, FileIdempotencyStore, Leasehold, SpaceLease

SESSION = "sess-restarted-worker"
Make = Callable[..., Harness]


@pytest.fixture
def worker(make_harness: Make, tmp_path: Path) -> Callable[[], Harness]:
    """A worker process: a client on the shared store directory and session."""
    return lambda: make_harness(idempotency_store=FileIdempotencyStore(str(tmp_path), fsync=False), session=SESSION)


def crash(lh: Leasehold) -> None:
    """The process dies: nothing released, no key forgotten."""
    lh.renewal.close()
    lh.close()


def acquire_keys(*harnesses: Harness) -> list[str]:
    return [r.headers["idempotency-key"] for w in harnesses for r in w.recorder.requests
            if r.method == "POST" and r.url.path.endswith("/claims")]


def test_space_claim_restarted_after_expiry_acquires_afresh_in_the_first_call(h: Harness, worker: Callable[[], Harness]) -> None:
    space_id, scope_id = str(uuid.uuid4()), str(uuid.uuid4())
    first = worker()
    old = first.lh.space(space_id).run(scope_id, holder="w", lease_seconds=10).claim("nightly").acquire(operation_id="nightly:claim")
    crash(first.lh)
    h.advance(15)  # the 10 s lease expired while the worker was down

    second = worker()
    seen = second.lh.space(space_id).run(scope_id, holder="w", lease_seconds=10).claim("nightly").run(
        lambda lease: (lease.claim_id, lease.fence, lease.replayed), operation_id="nightly:claim")
    assert seen[0] != old.claim_id and (seen[1] or 0) > (old.fence or 0) and seen[2] is False
    keys = acquire_keys(first, second)  # the original, its replay, then one acquire under a new key
    assert len(keys) == 3 and keys[1] == keys[0] and keys[2] != keys[0]


def test_space_claim_released_behind_its_back_acquires_afresh(h: Harness, worker: Callable[[], Harness]) -> None:
    space_id, scope_id = str(uuid.uuid4()), str(uuid.uuid4())
    first = worker()
    old = first.lh.space(space_id).run(scope_id, holder="w").claim("nightly").acquire(operation_id="nightly:claim")
    h.lh.api.request("releaseSpaceClaim", path={"spaceId": space_id, "key": "nightly"}, body={"token": old._token})
    crash(first.lh)
    h.advance(2)

    second = worker()
    lease = second.lh.space(space_id).run(scope_id, holder="w").claim("nightly").acquire(operation_id="nightly:claim")
    assert lease.status == "held" and lease.replayed is False and (lease.fence or 0) > (old.fence or 0)
    lease.release()


def test_space_claim_restarted_while_it_runs_keeps_the_replayed_lease(h: Harness, worker: Callable[[], Harness]) -> None:
    space_id, scope_id = str(uuid.uuid4()), str(uuid.uuid4())
    first = worker()
    old = first.lh.space(space_id).run(scope_id, holder="w").claim("nightly").acquire(operation_id="nightly:claim")
    crash(first.lh)
    h.advance(3)

    second = worker()
    lease = second.lh.space(space_id).run(scope_id, holder="w").claim("nightly").acquire(operation_id="nightly:claim")
    assert lease.replayed is True and lease.claim_id == old.claim_id and lease.fence == old.fence
    for _ in range(3):  # a minute and more: the heartbeat renews the replayed claim
        second.advance(11)
    second.settle(lambda: second.lh.renewal.core.stats.heartbeats >= 1 and not second.lh.renewal.core.in_flight)
    assert lease.is_held and h.lh.space(space_id).get_claim("nightly")["claimId"] == old.claim_id
    lease.release()


def test_task_claims_replay_during_the_claim_and_claim_afresh_after_it(h: Harness, worker: Callable[[], Harness]) -> None:
    # Restarted while the claim runs: work() goes on under the replayed claim.
    first = worker()
    running = first.lh.tasks.create("resume me")
    old = first.lh.tasks.claim(running["id"], operation_id=f"task:{running['id']}:claim")
    crash(first.lh)
    h.advance(60)
    second = worker()
    assert second.lh.tasks.work(running["id"], lambda ctx: (ctx.lease.claim_id, ctx.lease.fence)) == (old.claim_id, old.fence)

    # Restarted after the claim expired: the first work() claims afresh and completes.
    third = worker()
    expired = third.lh.tasks.create("restart me")
    stale = third.lh.tasks.claim(expired["id"], operation_id=f"task:{expired['id']}:claim")
    crash(third.lh)
    h.advance(16 * 60)
    fourth = worker()
    assert fourth.lh.tasks.work(expired["id"], lambda ctx: ctx.lease.fence) > stale.fence  # type: ignore[operator]

    # Released behind its back (its key left behind): the first work() claims afresh.
    fifth = worker()
    released = fifth.lh.tasks.create("released behind its back")
    gone = fifth.lh.tasks.claim(released["id"], operation_id=f"task:{released['id']}:claim")
    h.lh.api.request("releaseTaskClaim", path={"taskId": released["id"]}, body={"token": gone._token},
                     headers={"If-Match": h.lh.tasks.get(released["id"])[1]})
    crash(fifth.lh)
    sixth = worker()
    assert sixth.lh.tasks.work(released["id"], lambda ctx: ctx.lease.fence) > gone.fence  # type: ignore[operator]
    for task in (running, expired, released):
        assert h.lh.tasks.get(task["id"])[0]["status"] == "Done"


def test_a_replayed_claim_of_another_session_is_given_back_and_claimed_afresh(h: Harness, make_harness: Make, tmp_path: Path) -> None:
    first = make_harness(idempotency_store=FileIdempotencyStore(str(tmp_path), fsync=False), session="sess-old")
    task = first.lh.tasks.create("another session's claim")
    old = first.lh.tasks.claim(task["id"], operation_id=f"task:{task['id']}:claim")
    crash(first.lh)
    second = make_harness(idempotency_store=FileIdempotencyStore(str(tmp_path), fsync=False), session="sess-new")
    claim_id = second.lh.tasks.work(task["id"], lambda ctx: ctx.lease.claim_id)
    assert claim_id != old.claim_id  # our heartbeat could not have renewed the old session's claim
    done, _ = h.lh.tasks.get(task["id"])
    assert done["status"] == "Done" and done["attempts"] == 2


def test_queue_receives_restarted_before_and_after_the_lease_timeout(h: Harness, worker: Callable[[], Harness]) -> None:
    spool = "r" + uuid.uuid4().hex[:10]
    first = worker()
    first.lh.spool(spool).create()
    queue = first.lh.spool(spool).queue("jobs")
    queue.put(lease_timeout=30)
    sent = queue.send({"n": 1})
    old = queue.receive()
    assert old is not None and old.message["id"] == sent["id"]
    crash(first.lh)
    h.advance(5)

    # Before the timeout: a receive takes no Idempotency-Key (the spec), so nothing is replayed —
    # the message is still leased to the dead worker.
    second = worker()
    again = second.lh.spool(spool).queue("jobs")
    assert again.receive() is None
    h.advance(30)  # after the timeout: leased again, a new lease, its second delivery
    lease = again.receive()
    assert lease is not None and lease.message["id"] == sent["id"] and lease.claim_id != old.claim_id
    assert lease.delivery_count == 2 and (lease.fence or 0) > (old.fence or 0)
    lease.ack()
    assert again.receive() is None


def test_async_space_claim_and_task_restarted_after_expiry_acquire_afresh(h: Harness, tmp_path: Path) -> None:
    def client() -> AsyncLeasehold:
        return AsyncLeasehold(base_url=h.server.url, api_key=API_KEY, session=SESSION, clock=FakeClock(),
                              idempotency_store=FileIdempotencyStore(str(tmp_path), fsync=False))

    async def crash_async(lh: AsyncLeasehold) -> None:
        await lh.renewal.close()
        await lh.close()

    space_id, scope_id = str(uuid.uuid4()), str(uuid.uuid4())

    async def before() -> tuple[SpaceLease, int, int]:
        lh = client()
        old = await lh.space(space_id).run(scope_id, holder="w", lease_seconds=10).claim("nightly").acquire(operation_id="nightly:claim")
        task = await lh.tasks.create("async restart")
        claim = await lh.tasks.claim(task["id"], operation_id=f"task:{task['id']}:claim")
        await crash_async(lh)
        return old, task["id"], claim.fence or 0  # type: ignore[return-value]

    old, task_id, old_task_fence = asyncio.run(before())
    h.advance(16 * 60)

    async def after() -> None:
        async with client() as lh:
            lease = await lh.space(space_id).run(scope_id, holder="w", lease_seconds=10).claim("nightly").acquire(operation_id="nightly:claim")
            assert lease.replayed is False and lease.claim_id != old.claim_id and (lease.fence or 0) > (old.fence or 0)
            await lease.release()

            async def fence(ctx: object) -> int:
                return getattr(ctx, "lease").fence or 0

            assert await lh.tasks.work(task_id, fence) > old_task_fence
            assert (await lh.tasks.get(task_id))[0]["status"] == "Done"

    asyncio.run(after())
