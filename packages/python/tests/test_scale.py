"""One client renews 10,000 leases with ONE batch heartbeat per cadence against the real server:
no per-lease renew, every id the client tracks named in that one request, every lease still held
past the term its acquire granted."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

from conftest import Harness
from leasehold import SpaceLease

LEASES = 10_000


def test_ten_thousand_leases_are_renewed_by_one_heartbeat_request_per_cadence(h: Harness) -> None:
    run = h.run(holder="scale-worker")

    def take(start: int) -> list[SpaceLease]:
        return [run.claim(f"k{n}").acquire() for n in range(start, LEASES, 4)]

    with ThreadPoolExecutor(4) as pool:  # the acquires are the slow part: 4 connections at once
        leases = [lease for part in pool.map(take, range(4)) for lease in part]
    ids = {lease.claim_id for lease in leases}
    assert len(ids) == LEASES and h.heartbeats_sent() == 0
    for cadence in range(1, 4):
        h.advance(11)  # a third of the 30 s term, plus the jitter
        h.settle(lambda: h.lh.renewal.core.stats.heartbeats == cadence and not h.lh.renewal.core.in_flight, timeout=60)
        beats = h.recorder.of("/v1/claims/heartbeat")
        assert len(beats) == cadence  # ONE request per cadence for 10,000 leases
        assert set(json.loads(beats[-1].content)["claimIds"]) == ids
    assert h.recorder.of("/renew") == []  # never a renew per lease
    # 33 s of server time: past the 30 s every acquire granted, yet every lease is still held.
    assert all(lease.is_held for lease in leases) and h.lh.renewal.core.stats.lost == 0
    space = h.lh.space(h.space_id)
    assert all(space.get_claim(key)["status"] == "held" for key in ("k0", "k4999", f"k{LEASES - 1}"))

    # One cancel of the run, and the next heartbeat tells the client all 10,000 are gone (`lost`, as in TypeScript).
    run.cancel()
    h.advance(11)
    h.settle(lambda: h.lh.renewal.core.stats.lost == LEASES, timeout=60)
    assert len(h.recorder.of("/v1/claims/heartbeat")) == 4
    assert all(lease.lost.is_set() for lease in leases) and {lease.lost_reason for lease in leases} == {"lost"}
    assert h.lh.renewal.core.leases == {}  # nothing left to renew or to release on close
