"""``lh.tasks.work()`` as the TypeScript loop does it (issue 24): a stalled task (its worker died
after ``InProgress``) comes back after its backoff and is taken like a ``Todo`` one;
``max_attempts`` gives up on a task (``Blocked``, a note saying why, ``AttemptsExhaustedError``);
a failing ``fn`` leaves a note and the status it asks for; a claim with too little time left is
refused (``UnusableLeaseError``). Time moves on the server's manual clock."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import httpx
import pytest

from conftest import API_KEY, FakeClock, Harness, Server
from leasehold import (
    AttemptsExhaustedError, FileIdempotencyStore, InvalidArgumentError, Leasehold, RetryPolicy, TaskLease, TaskWorkContext, UnusableLeaseError,
    http_transport,
)


def crash(lh: Leasehold) -> None:
    """The worker process dies: nothing is released, no key forgotten."""
    lh.renewal.close()
    lh.close()


def claimable_ids(h: Harness) -> set[int]:
    return {t["id"] for t in h.lh.tasks.list(claimable=True)}


def test_a_stalled_task_comes_back_after_its_backoff_and_work_takes_it(h: Harness, make_harness: Callable[..., Harness]) -> None:
    worker = make_harness()
    task = h.lh.tasks.create("the worker dies after InProgress")
    lease = worker.lh.tasks.claim(task["id"])
    worker.lh.tasks.update(task["id"], {"status": "InProgress"}, claim=lease)
    crash(worker.lh)
    h.advance(901)  # the 15-minute claim expired on the server
    stalled, _ = h.lh.tasks.get(task["id"])
    assert stalled["status"] == "InProgress" and stalled["claim"] is None and stalled["stalled"] is True
    assert stalled["attempts"] == 1 and stalled["lastClaim"] is not None and stalled["lastClaim"]["outcome"] == "expired"
    assert stalled["availableUtc"] is not None
    assert task["id"] not in claimable_ids(h)  # the backoff: 5 s after the claim's end
    h.advance(5)
    assert task["id"] in claimable_ids(h)

    seen: list[str] = []

    def resume(ctx: TaskWorkContext) -> dict[str, bool]:
        seen.append(ctx.task["status"])
        return {"resumed": True}

    result = h.lh.tasks.work(task["id"], resume)
    assert result == {"resumed": True} and seen == ["InProgress"]
    assert [r.method for r in h.recorder.of(f"/v1/tasks/{task['id']}") if r.method == "PATCH"] == []  # already InProgress
    done, _ = h.lh.tasks.get(task["id"])
    assert done["status"] == "Done" and done["attempts"] == 2 and done["stalled"] is False


def test_max_attempts_blocks_the_task_with_a_note_and_raises(h: Harness) -> None:
    task = h.lh.tasks.create("keeps killing its workers")
    for _ in range(2):
        h.lh.tasks.claim(task["id"]).release()
    ran: list[int] = []
    with pytest.raises(AttemptsExhaustedError) as caught:
        h.lh.tasks.work(task["id"], lambda ctx: ran.append(1), max_attempts=2)
    assert (caught.value.task_id, caught.value.attempts, caught.value.max_attempts) == (task["id"], 2, 2)
    assert "Blocked" in str(caught.value) and ran == []
    blocked, _ = h.lh.tasks.get(task["id"])
    assert blocked["status"] == "Blocked" and blocked["claim"] is None and blocked["attempts"] == 2
    note = blocked["notes"][-1]["text"]
    assert note.startswith("tasks.work gave up after 2 attempts (max_attempts 2); the last claim released at ")
    assert note.endswith("Blocked until an operator requeues it.")
    with pytest.raises(AttemptsExhaustedError):  # still given up on, nothing written twice
        h.lh.tasks.work(task["id"], lambda ctx: ran.append(1), max_attempts=2)
    assert len(h.lh.tasks.get(task["id"])[0]["notes"]) == len(blocked["notes"])

    h.lh.tasks.requeue(task["id"])  # the operator's way back: attempts 0
    assert h.lh.tasks.work(task["id"], lambda ctx: "done", max_attempts=2) == "done"
    assert h.lh.tasks.get(task["id"])[0]["status"] == "Done"


def test_a_failing_fn_leaves_a_note_and_the_status_it_asks_for(h: Harness) -> None:
    def boom(ctx: TaskWorkContext) -> None:
        raise ValueError("disk full")

    first = h.lh.tasks.create("fails, back to Todo")
    with pytest.raises(ValueError):
        h.lh.tasks.work(first["id"], boom)
    back, _ = h.lh.tasks.get(first["id"])
    assert back["status"] == "Todo" and back["claim"] is None and back["lastClaim"] is not None
    assert back["lastClaim"]["outcome"] == "released"
    assert back["notes"][-1]["text"] == "work() failed: ValueError: disk full (task back to Todo, claim released)."

    second = h.lh.tasks.create("fails, Blocked, own note")
    with pytest.raises(ValueError):
        h.lh.tasks.work(second["id"], boom, failure_status="Blocked", failure_note=lambda error: f"needs a look: {error}")
    blocked, _ = h.lh.tasks.get(second["id"])
    assert blocked["status"] == "Blocked" and blocked["notes"][-1]["text"] == "needs a look: disk full"

    third = h.lh.tasks.create("fails, no note")
    with pytest.raises(ValueError):
        h.lh.tasks.work(third["id"], boom, failure_note=False)
    assert h.lh.tasks.get(third["id"])[0]["notes"] == []


def test_the_result_and_a_closing_note_are_written_with_the_completion(h: Harness) -> None:
    task = h.lh.tasks.create("report")

    def work(ctx: TaskWorkContext) -> dict[str, int]:
        ctx.add_note(f"drafted under fence {ctx.lease.fence}")
        return {"pages": 3}

    def closing(value: dict[str, int]) -> str:
        return f"{value['pages']} pages"

    assert h.lh.tasks.work(task["id"], work, note=closing) == {"pages": 3}
    done, _ = h.lh.tasks.get(task["id"])
    assert done["result"] == {"pages": 3} and [n["text"] for n in done["notes"]][-1] == "3 pages"
    assert done["notes"][0]["text"].startswith("drafted under fence ") and done["notes"][0]["claimId"] is not None
    with pytest.raises(InvalidArgumentError):
        h.lh.tasks.work(task["id"], lambda ctx: None, max_attempts=0)


def test_a_replayed_claim_with_too_little_time_left_is_refused(h: Harness, make_harness: Callable[..., Harness], tmp_path: Path) -> None:
    def worker() -> Harness:
        return make_harness(idempotency_store=FileIdempotencyStore(str(tmp_path), fsync=False), session="sess-short")

    first = worker()
    task = first.lh.tasks.create("claimed, then the worker died")
    old = first.lh.tasks.claim(task["id"], operation_id=f"task:{task['id']}:claim")
    crash(first.lh)
    h.advance(880)  # 20 s of the 15-minute claim left
    ran: list[int] = []
    second = worker()
    with pytest.raises(UnusableLeaseError) as caught:
        second.lh.tasks.work(task["id"], lambda ctx: ran.append(1))
    assert caught.value.claim_id == old.claim_id and caught.value.remaining < 30 and caught.value.min_remaining == 30
    assert ran == [] and h.lh.tasks.get(task["id"])[0]["claim"] is None  # released, not left behind
    claims = [r for r in second.recorder.of(f"/v1/tasks/{task['id']}/claim") if r.url.path.endswith("/claim")]
    assert len(claims) == 1  # the replay, nothing new claimed


class LosesTheFirstCompleteAnswer(httpx.BaseTransport):
    """An outage around the first ``complete``: it reaches the server but its answer is lost (a
    timeout); its retry finds the server unreachable after ``meanwhile`` ran (a heartbeat seeing
    the claim end by that very complete). Every later request goes through."""

    def __init__(self, meanwhile: Callable[[], None]) -> None:
        self._inner = http_transport()
        self._meanwhile = meanwhile
        self.completes = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/complete"):
            self.completes += 1
            if self.completes == 1:
                self._inner.handle_request(request).read()
                raise httpx.ReadTimeout("the answer was lost", request=request)
            if self.completes == 2:
                self._meanwhile()
                raise httpx.ConnectError("the server is unreachable", request=request)
        return self._inner.handle_request(request)

    def close(self) -> None:
        self._inner.close()


def test_a_complete_whose_answer_was_lost_while_a_heartbeat_saw_the_claim_end_counts_as_done(server: Server) -> None:
    clock = FakeClock()
    lh: Leasehold

    def heartbeat_in_the_dark() -> None:
        # The claim's renewal falls due; the heartbeat reports it lost: the complete ended it.
        clock.now += 500  # past the renewal (a third of 900 s, jittered), well before the deadline
        lh.renewal.wake()
        core = lh.renewal.core
        with core.settled:
            assert core.settled.wait_for(lambda: core.stats.succeeded >= 1 and not core.in_flight, 15)

    transport = LosesTheFirstCompleteAnswer(heartbeat_in_the_dark)
    lh = Leasehold(
        base_url=server.url, api_key=API_KEY, clock=clock, http_client=httpx.Client(transport=transport, timeout=30),
        retry_policy=RetryPolicy(max_retries=1, base_delay=0.01, max_delay=0.02, outage_base_delay=0.01, outage_max_delay=0.02),
    )
    try:
        task = lh.tasks.create("completed in the dark")
        leases: list[TaskLease] = []

        def work(ctx: TaskWorkContext) -> str:
            leases.append(ctx.lease)
            return "built"

        assert lh.tasks.work(task["id"], work) == "built"
        assert transport.completes == 3 and leases[0].lost_reason == "lost"  # the heartbeat did see it end; then one replay
        done, _ = lh.tasks.get(task["id"])
        assert done["status"] == "Done" and done["result"] == "built" and done["attempts"] == 1
    finally:
        lh.close()
