"""The renewal scheduler's decisions, without a server or a thread: one heartbeat per cadence for
1 to 10,000 leases, deadlines counted from the send minus the drift margin, backoff that never
waits past half the time left, and what each ack means."""

from __future__ import annotations

from conftest import FakeClock
from leasehold._exceptions import ServiceUnavailableError
from leasehold._lease_state import LeaseState
from leasehold._scheduler import MAX_CLAIM_IDS_PER_HEARTBEAT, SchedulerCore


def core(clock: FakeClock) -> SchedulerCore:
    return SchedulerCore(ttl=30, holder_session="s", clock=clock, random=lambda: 0.5)  # jitter factor 1.0


def lease(clock: FakeClock, n: int, status: str = "held") -> LeaseState:
    return LeaseState(claim_id=f"clm_{n}", kind="space", status=status, fence=1, clock=clock)  # type: ignore[arg-type]


def test_ten_thousand_leases_one_heartbeat_per_cadence() -> None:
    clock = FakeClock()
    c = core(clock)
    for n in range(10_000):
        c.register(lease(clock, n), 30.0, clock.now)
    assert c.step(clock.now)[0] is None  # nothing due before a third of the term
    clock.now += 10
    plan, _ = c.step(clock.now)
    assert plan is not None and len(plan.chunks) == 1 and len(plan.chunks[0]) == 10_000
    assert c.step(clock.now)[0] is None  # at most one heartbeat in flight
    c.answered(plan, [{"claimId": f"clm_{n}", "status": "held"} for n in range(10_000)])
    assert c.step(clock.now + 9.9)[0] is None
    again, _ = c.step(clock.now + 10)
    assert again is not None and again.sent_at == clock.now + 10


def test_more_than_ten_thousand_split_into_requests_of_at_most_ten_thousand() -> None:
    clock = FakeClock()
    c = core(clock)
    for n in range(MAX_CLAIM_IDS_PER_HEARTBEAT + 1):
        c.register(lease(clock, n), 30.0, clock.now)
    plan, _ = c.step(clock.now + 10)
    assert plan is not None and [len(chunk) for chunk in plan.chunks] == [10_000, 1]


def test_deadline_counts_from_the_send_minus_the_drift_margin() -> None:
    clock = FakeClock()
    c = core(clock)
    held = lease(clock, 1)
    c.register(held, 30.0, clock.now - 2)  # the acquire was sent 2 s before its answer arrived
    assert held.deadline == clock.now - 2 + 30 - 1.5
    plan, _ = c.step(clock.now + 8)
    assert plan is not None and plan.timeout == 10.0  # one cadence, well before the deadline
    c.failed(ServiceUnavailableError("down", status=503, type="unavailable_error"), clock.now + 8)
    c.step(clock.now + 26.4)
    assert not held.lost.is_set() and held.at_risk.is_set()
    c.step(clock.now + 26.5)
    assert held.lost.is_set() and held.lost_reason == "deadline"


def test_backoff_honours_retry_after_but_never_waits_past_half_the_time_left() -> None:
    clock = FakeClock()
    c = core(clock)
    c.register(lease(clock, 1), 30.0, clock.now)
    plan, _ = c.step(clock.now + 10)
    assert plan is not None
    c.failed(ServiceUnavailableError("down", status=503, type="unavailable_error", retry_after=5), clock.now + 10)
    assert c.next_heartbeat_at == clock.now + 15  # the server's 5 s
    plan, _ = c.step(clock.now + 15)
    assert plan is not None and plan.timeout == 10.0
    c.failed(ServiceUnavailableError("down", status=503, type="unavailable_error", retry_after=60), clock.now + 25)
    assert c.next_heartbeat_at == clock.now + 25 + (28.5 - 25) / 2  # capped: half the 3.5 s left


def test_acks_lost_and_a_held_lease_reported_queued_end_it() -> None:
    clock = FakeClock()
    c = core(clock)
    a, b, q = lease(clock, 1), lease(clock, 2), lease(clock, 3, "queued")
    for each in (a, b, q):
        c.register(each, 30.0, clock.now)
    plan, _ = c.step(clock.now + 10)
    assert plan is not None
    c.answered(plan, [{"claimId": "clm_1", "status": "lost"}, {"claimId": "clm_2", "status": "queued"},
                      {"claimId": "clm_3", "status": "held"}, {"claimId": "clm_other", "status": "held"}])
    assert a.lost_reason == "lost" and b.lost_reason == "lost"
    assert q.status == "held" and q.granted.is_set() and q.deadline == clock.now + 10 + 28.5
    assert list(c.leases) == ["clm_3"]


def test_registering_a_lease_due_after_the_next_heartbeat_asks_no_new_look() -> None:
    # The driver rescans every lease when woken: waking it for each of 10,000 acquires is O(n²).
    clock = FakeClock()
    c = core(clock)
    assert c.register(lease(clock, 0), 30.0, clock.now) is True  # the first: a heartbeat is now due
    clock.now += 1
    assert all(c.register(lease(clock, n), 30.0, clock.now) is False for n in range(1, 1000))  # due later
    assert c.register(lease(clock, 1000), 6.0, clock.now) is True  # a shorter term: due earlier
    short = lease(clock, 1001)
    assert c.register(short, 1.2, clock.now) is True  # deadline before any renewal would be due
    assert c.register(short, 1.2, clock.now) is True  # registered again (a renew), still due first: a new look
    later = lease(clock, 2000)
    assert c.register(later, 30.0, clock.now) is False
    assert c.register(later, 30.0, clock.now) is False  # renewed by hand, due after the next heartbeat: no new look
    plan, _ = c.step(clock.now + 2)
    assert short.lost.is_set() and plan is not None and len(plan.chunks[0]) == 1002
