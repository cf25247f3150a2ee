"""Which failed renew or release means the lease is gone, and why (the TypeScript SDK's rules)."""

from __future__ import annotations

from typing import Optional

from ._exceptions import APIError, LeaseLostError, LeaseLostReason

_NOT_A_LOSS_409 = frozenset({"claim_queued", "idempotency_in_flight", "idempotency_key_reused"})


def lease_lost_reason_of(error: BaseException) -> Optional[LeaseLostReason]:
    """410 / ``stale_token`` → stale, ``lease_expired`` → expired, ``scope_cancelled`` → cancelled,
    any other 409 → lost; None when the error says nothing about the lease (network, 5xx, 429...)."""
    if isinstance(error, LeaseLostError):
        return error.reason
    if not isinstance(error, APIError):
        return None
    if error.code == "lease_expired":
        return "expired"
    if error.code == "scope_cancelled":
        return "cancelled"
    if error.code == "stale_token" or error.status == 410:
        return "stale"
    if error.status == 409:
        return None if error.code in _NOT_A_LOSS_409 else "lost"
    return None
