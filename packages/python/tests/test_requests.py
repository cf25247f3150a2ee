"""The request function against the real server: retries honour Retry-After, keep the same
Idempotency-Key, never retry what is unsafe; the typed errors carry the server's fields."""

from __future__ import annotations

import random

import pytest

from conftest import Harness
from leasehold import BadRequestError, FileIdempotencyStore, PreconditionFailedError, RetryPolicy, ServiceUnavailableError


def test_a_503_with_retry_after_is_retried_with_the_same_key(h: Harness) -> None:
    h.lh.control.inject_fault({"operationId": "createTask", "status": 503, "retryAfterSeconds": 2, "times": 2})
    task = h.lh.tasks.create("retried")
    creates = h.recorder.of("/v1/tasks")
    assert len(creates) == 3 and h.sleeps == [2.0, 2.0]  # the server's wait, not the backoff
    keys = {r.headers["idempotency-key"] for r in creates}
    assert len(keys) == 1 and all(key.startswith("idk_") for key in keys)
    assert task["title"] == "retried"


def test_retries_give_up_after_max_retries(h: Harness) -> None:
    h.lh.control.inject_fault({"operationId": "createTask", "status": 503, "times": 5})
    with pytest.raises(ServiceUnavailableError) as caught:
        h.lh.tasks.create("never")
    assert len(h.recorder.of("/v1/tasks")) == 3 and len(h.sleeps) == 2
    assert all(0 <= s <= 1.0 for s in h.sleeps)  # full jitter: random() * min(8, 0.5 * 2^(n-1))
    assert caught.value.status == 503


def test_full_jitter_backoff_without_retry_after() -> None:
    policy = RetryPolicy(max_retries=5, random=lambda: 0.5)
    assert [policy.delay(n) for n in (1, 2, 3, 6)] == [0.25, 0.5, 1.0, 4.0]
    assert RetryPolicy(random=lambda: 0.999).delay(10) == pytest.approx(7.992)
    assert 0 <= RetryPolicy(random=random.random).delay(1) < 0.5


def test_a_refusal_is_not_retried(h: Harness) -> None:
    task = h.lh.tasks.create("x")
    with pytest.raises(PreconditionFailedError) as caught:
        h.lh.tasks.claim(task["id"], etag='"stale"')
    assert caught.value.code == "etag_mismatch" and caught.value.request_id and h.sleeps == []
    with pytest.raises(BadRequestError) as bad:
        h.lh.api.request("createTask", body={"title": 7})
    assert bad.value.code is not None and bad.value.type == "invalid_request_error"


def test_operation_id_with_a_store_replays_after_a_lost_answer(h: Harness, tmp_path: object, make_harness: object) -> None:
    store = FileIdempotencyStore(str(tmp_path))
    first = Harness(h.server, idempotency_store=store)
    try:
        created = first.lh.tasks.create("once", operation_id="create-once")
        again = first.lh.api.request("createTask", body={"title": "once"}, operation_id="create-once")
        assert again.replayed and again.data["id"] == created["id"]
        assert store.get("create-once") == first.recorder.requests[-1].headers["idempotency-key"]
    finally:
        first.lh.close()
