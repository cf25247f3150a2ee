"""Space claims against the real server: acquire / try_acquire / run, renewal of many leases in
ONE heartbeat request per cadence, loss signalled before the server expires the lease."""

from __future__ import annotations

import json
import threading

import pytest

from conftest import Harness, wait_event
from leasehold import ConflictError, LeaseLostError, NotFoundError, SpaceLease


def test_acquire_holds_the_key_and_release_frees_it(h: Harness) -> None:
    run = h.run()
    with run.claim("reports/2026-11").acquire() as lease:
        assert lease.status == "held" and isinstance(lease.fence, int)
        assert run.claim("reports/2026-11").try_acquire() is None  # held elsewhere: None, not an error
        assert h.lh.space(h.space_id).get_claim("reports/2026-11")["claimId"] == lease.claim_id
    assert lease.lost.is_set() and lease.lost_reason == "released"
    with pytest.raises(NotFoundError) as caught:
        h.lh.space(h.space_id).get_claim("reports/2026-11")
    assert caught.value.code == "claim_not_found" and caught.value.request_id


def test_run_renews_releases_and_returns_the_value(h: Harness) -> None:
    seen: list[int] = []
    def work(lease: SpaceLease) -> str:
        seen.append(lease.fence or 0)
        return "done"

    result = h.run().claim("k").run(work)
    assert result == "done" and seen and seen[0] > 0
    assert h.lh.renewal.core.leases == {}


def test_many_leases_renewed_by_one_heartbeat_request_per_cadence(h: Harness) -> None:
    leases = [h.run().claim(f"k{i}").acquire() for i in range(100)]
    assert h.heartbeats_sent() == 0
    for cadence in range(1, 4):
        h.advance(11)  # a third of the 30 s lease, plus the jitter
        h.settle(lambda: h.lh.renewal.core.stats.heartbeats == cadence and not h.lh.renewal.core.in_flight)
        assert h.heartbeats_sent() == cadence  # ONE request per cadence for 100 leases
        body = json.loads(h.recorder.of("/v1/claims/heartbeat")[-1].content)
        assert sorted(body["claimIds"]) == sorted(lease.claim_id for lease in leases)  # exactly the tracked ones
        assert body["holderSession"] == h.lh.session
    # 33 s of server time: past the 30 s the acquire granted, yet every lease is still held.
    assert all(lease.is_held for lease in leases)
    assert h.lh.space(h.space_id).get_claim("k0")["status"] == "held"


def test_a_lease_the_client_never_tracked_is_not_kept_alive(h: Harness, make_harness: object) -> None:
    mine = h.run().claim("mine").acquire()
    other = h.run().claim("forgotten").acquire()
    h.lh.renewal.unregister(other)  # as if the client never learned of it (same session)
    h.advance(11)
    h.settle(lambda: h.lh.renewal.core.stats.heartbeats == 1 and not h.lh.renewal.core.in_flight)
    body = json.loads(h.recorder.of("/v1/claims/heartbeat")[-1].content)
    assert body["claimIds"] == [mine.claim_id]
    h.advance(20)  # 31 s: the forgotten lease's term is over
    with pytest.raises(NotFoundError):
        h.lh.space(h.space_id).get_claim("forgotten")
    assert mine.is_held


def test_lost_on_the_server_is_reported_by_the_next_heartbeat(h: Harness) -> None:
    lease = h.run().claim("k").acquire()
    reasons: list[str] = []
    lease.on_lost(lambda error: reasons.append(error.reason))
    h.lh.control.lose_lease(lease.claim_id)
    h.advance(11)
    assert wait_event(lease.lost)
    assert lease.lost_reason == "lost" and reasons == ["lost"]
    with pytest.raises(LeaseLostError) as caught:
        lease.raise_if_lost()
    assert caught.value.reason == "lost" and caught.value.claim_id == lease.claim_id
    assert lease.release() is None  # already gone: nothing to release


def test_unreachable_server_signals_at_risk_then_deadline_before_the_server_expires_it(h: Harness) -> None:
    lease = h.run().claim("k").acquire()
    h.lh.control.inject_fault({"operationId": "heartbeatClaims", "status": 503, "times": 1000})
    h.advance(18)  # past the at-risk mark (deadline 28.5 s minus a third of the term, plus jitter)
    assert wait_event(lease.at_risk)
    h.settle(lambda: h.lh.renewal.core.stats.failures >= 1)  # the heartbeat was sent, and refused
    assert not lease.lost.is_set()
    h.advance(10.6)  # 28.6 s: past the local deadline (30 s minus the 1.5 s drift margin)
    assert wait_event(lease.lost)
    assert lease.lost_reason == "deadline"
    # The server has not expired it yet: the client stopped trusting it first.
    assert h.lh.space(h.space_id).get_claim("k")["status"] == "held"


def test_renewal_rides_out_a_few_failed_heartbeats(h: Harness) -> None:
    lease = h.run().claim("k").acquire()
    h.lh.control.inject_fault({"operationId": "heartbeatClaims", "status": 503, "retryAfterSeconds": 1, "times": 2})
    h.advance(11)
    h.settle(lambda: h.lh.renewal.core.stats.failures == 1)
    h.advance(2)  # past the Retry-After: the second heartbeat fails too
    h.settle(lambda: h.lh.renewal.core.stats.failures == 2 and not h.lh.renewal.core.in_flight)
    h.advance(2)  # the third gets through
    h.settle(lambda: h.lh.renewal.core.stats.heartbeats >= 3 and h.lh.renewal.core.failures == 0)
    assert lease.is_held and h.heartbeats_sent() >= 3


def test_queued_acquire_waits_its_turn(h: Harness, make_harness: object) -> None:
    first = h.run("first").claim("shared").acquire()
    got: list[object] = []
    waiter = threading.Thread(target=lambda: got.append(h.run("second").claim("shared").acquire(timeout=30)))
    waiter.start()
    h.settle(lambda: len(h.lh.renewal.core.leases) == 2, timeout=15)
    first.release()
    h.advance(11)  # the next heartbeat reports the grant
    waiter.join(30)
    assert got and getattr(got[0], "status") == "held" and getattr(got[0], "fence") > (first.fence or 0)
    getattr(got[0], "release")()


def test_cancelled_run_takes_the_lease_away(h: Harness) -> None:
    run = h.run()
    lease = run.claim("k").acquire()
    run.cancel()
    with pytest.raises(LeaseLostError) as caught:
        lease.renew()
    assert caught.value.reason == "cancelled" and lease.lost_reason == "cancelled"
    assert isinstance(caught.value.__cause__, ConflictError) and caught.value.__cause__.code == "scope_cancelled"
