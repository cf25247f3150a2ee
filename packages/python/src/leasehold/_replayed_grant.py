"""A replayed acquire whose lease already ended is not handed to the caller (the TypeScript SDK's
``acquireUnlessEnded``): a worker restarted with the same ``operation_id`` after its lease
expired, or was released behind its back, would fail its first use of the replay. The lease is
dropped — its loss forgets the operation's stored key — and the acquire is sent once more, a new
one with a new key, so the caller gets a new grant (a larger fence) in the same call. A replay
whose lease still runs is returned as it is (renewed once on the way)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, Optional, TypeVar

from ._exceptions import LeaseholdError, LeaseLostError
from ._idempotency import IdempotencyStore
from ._lease_state import LeaseState
from ._ride_through import log

L = TypeVar("L", bound=LeaseState)


@dataclass
class Grant(Generic[L]):
    """One lease-creating answer: its lease, whether the answer was a replay, and whether the lease
    is new to this client (False: it already tracked that claim, someone else ends it)."""

    lease: L
    replayed: bool
    fresh: bool


def forget_operation(store: Optional[IdempotencyStore], operation_id: Optional[str]) -> None:
    """Deletes the stored key of ``operation_id`` before an acquire that must be new (the lease's
    own forgetting may still be under way on the renewal thread)."""
    if store is not None and operation_id is not None:
        store.delete(operation_id)


def ended_locally(lease: LeaseState) -> Optional[bool]:
    """True when the lease is over already (lost, or its local deadline passed: the replayed
    receipt's expiry had gone by), False when the server must not be asked (queued: the heartbeat
    tells), None when only a renew can tell."""
    if not lease.lost.is_set() and lease.status == "held" and lease._clock() >= lease.deadline:
        lease.lose("deadline", f"The replayed grant of lease {lease.claim_id} had already expired.")
    if lease.lost.is_set():
        return True
    return None if lease.status == "held" else False


def _needs_fresh(grant: Grant[L]) -> bool:
    return grant.replayed and grant.fresh


def acquire_unless_ended(send: Callable[[bool], Grant[L]], renew: Callable[[L], None]) -> Grant[L]:
    """Sends the acquire (``send(False)``); a fresh replay whose lease ended is sent anew (``send(True)``: a new key)."""
    grant = send(False)
    if not _needs_fresh(grant):
        return grant
    ended = ended_locally(grant.lease)
    if ended is None:
        try:
            renew(grant.lease)
            ended = False
        except LeaseLostError:
            ended = True
        except LeaseholdError:
            ended = False  # network, 5xx: says nothing; the lease is kept (its heartbeat decides)
    if not ended:
        return grant
    log.info("A replayed acquire named lease %s, which had already ended (%s); acquiring afresh.",
             grant.lease.claim_id, grant.lease.lost_reason)
    return send(True)


async def async_acquire_unless_ended(send: Callable[[bool], Awaitable[Grant[L]]], renew: Callable[[L], Awaitable[None]]) -> Grant[L]:
    """:func:`acquire_unless_ended` for the asyncio client."""
    grant = await send(False)
    if not _needs_fresh(grant):
        return grant
    ended = ended_locally(grant.lease)
    if ended is None:
        try:
            await renew(grant.lease)
            ended = False
        except LeaseLostError:
            ended = True
        except LeaseholdError:
            ended = False
    if not ended:
        return grant
    log.info("A replayed acquire named lease %s, which had already ended (%s); acquiring afresh.",
             grant.lease.claim_id, grant.lease.lost_reason)
    return await send(True)
