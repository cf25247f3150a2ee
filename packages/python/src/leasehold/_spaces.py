"""Space claims: ``lh.space(id).run(scope_id, holder=...).claim(key)`` with ``acquire()`` (waits
its turn), ``try_acquire()`` (None when held elsewhere) and ``run(fn)``; a lease is a context
manager renewed by the client's one batch heartbeat while held. Sync and async handles share
:class:`SpaceLeaseBase`."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Optional, Protocol, TypeVar, cast

from ._base_client import APIResponse
from ._exceptions import ClientClosedError, ConflictError, LeaseholdError, LeaseLostError, NotFoundError, StoppedError
from ._generated.types import Claim, ReleasedClaim, ScopeCancellation
from ._idempotency import generate_idempotency_key
from ._lease_errors import lease_lost_reason_of
from ._lease_state import LeaseState
from ._replayed_grant import Grant, acquire_unless_ended, forget_operation
from ._ride_through import Ride, log, ride_through
from ._server_time import grant_duration

if TYPE_CHECKING:
    from ._client import Leasehold

T = TypeVar("T")


class RunAddress(Protocol):
    """What an acquire names: the space, the run, the holder and its lease length."""

    space_id: str
    scope_id: str
    holder: str
    lease_seconds: Optional[float]


def acquire_body(run: RunAddress, session: str, key: str, wait: bool) -> dict[str, Any]:
    """The body of ``acquireSpaceClaim`` for ``key`` under ``run``."""
    body: dict[str, Any] = {"key": key, "scopeId": run.scope_id, "holder": run.holder, "holderSession": session, "wait": wait}
    if run.lease_seconds is not None:
        body["leaseSeconds"] = run.lease_seconds
    return body


def space_grant_duration(claim: Claim, answer: APIResponse) -> Optional[float]:
    """What an acquire answer granted, counted from its send (a replay: what the server's clock says is left)."""
    return grant_duration(float(claim["leaseSeconds"]), claim["expiresAt"] / 1000, answer.headers, answer.replayed)


def release_quietly(release: Callable[[], object], claim_id: str) -> None:
    """Releases; a failure is logged, never raised over the caller's outcome (the lease expires at worst)."""
    try:
        release()
    except LeaseholdError as error:
        log.warning("Releasing lease %s failed (%s); no heartbeat names it any more, so it expires at the end of its term.",
                    claim_id, error)


class SpaceLeaseBase(LeaseState):
    """A lease on one key of a space: ``fence``, ``lost``, ``at_risk``, ``raise_if_lost()``."""

    def __init__(self, claim: Claim, token: str, clock: Callable[[], float]) -> None:
        super().__init__(claim_id=claim["claimId"], kind="space", status=claim["status"], fence=claim["fence"], clock=clock)
        # One copy of what every lease of a run repeats (10,000 leases: ~250 B each otherwise).
        self.space_id = sys.intern(claim["spaceId"])
        self.key = claim["key"]
        self.scope_id = sys.intern(claim["scopeId"])
        self.holder = sys.intern(claim["holder"])
        self.lease_seconds = float(claim["leaseSeconds"])
        self._token = token

    def __repr__(self) -> str:
        return f"<SpaceLease {self.key!r} {self.claim_id} fence={self.fence} status={self.status}>"

    def _path(self) -> dict[str, str]:
        return {"spaceId": self.space_id, "key": self.key}


class SpaceLease(SpaceLeaseBase):
    """A space lease of the sync client; ``with lease:`` releases it on exit."""

    def __init__(self, lh: Leasehold, claim: Claim, token: str) -> None:
        super().__init__(claim, token, lh._clock)
        self._lh = lh

    def renew(self) -> None:
        """Renews now (the batch heartbeat does it anyway); a refusal that means the lease is gone loses it."""
        self.raise_if_lost()
        sent_at = self._lh._clock()
        try:
            answer = self._lh._api.request("renewSpaceClaim", path=self._path(), body={"token": self._token, "leaseSeconds": self.lease_seconds})
        except LeaseholdError as error:
            if self._lose_if(error):
                raise LeaseLostError(self.lost_reason or "lost", self.claim_id, str(error)) from error
            raise
        self._lh._scheduler.register(self, float(cast(Claim, answer.data)["leaseSeconds"]), sent_at)

    def release(self) -> Optional[ReleasedClaim]:
        """Gives the key back (the next waiter gets it); idempotent, None when already gone."""
        if self.lost.is_set():
            return None
        self._lh._scheduler.unregister(self)
        try:
            answer = self._lh._api.request("releaseSpaceClaim", path=self._path(), body={"token": self._token})
        except LeaseholdError as error:
            if self._lose_if(error):
                return None
            raise
        finally:
            self.lose("released")
        return cast(ReleasedClaim, answer.data)

    def _lose_if(self, error: LeaseholdError) -> bool:
        reason = lease_lost_reason_of(error)
        if reason is not None:
            self._lh._scheduler.unregister(self)
            self.lose(reason, str(error))
        return reason is not None

    def __enter__(self) -> SpaceLease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class ClaimHandle:
    """One key of a space claimed for one run (sync)."""

    def __init__(self, run: Run, key: str) -> None:
        if not isinstance(key, str) or key in ("", ".", ".."):
            raise LeaseholdError(f"A claim key must be a non-empty string other than . and .., got {key!r}.")
        self._run = run
        self.key = key

    def _grant(self, wait: bool, operation_id: Optional[str], key: str) -> Grant[SpaceLease]:
        run, lh = self._run, self._run._lh
        body = acquire_body(run, lh.session, self.key, wait)
        sent_at = lh._clock()
        answer = lh._api.request(
            "acquireSpaceClaim", path={"spaceId": run.space_id}, body=body, operation_id=operation_id, idempotency_key=key
        )
        claim = cast(Claim, answer.data)
        tracked = lh._scheduler.core.tracked(claim["claimId"])
        if isinstance(tracked, SpaceLease):  # a replay of a lease this client already holds
            return Grant(tracked, answer.replayed, False)
        token = claim.get("token")
        if not token:
            raise LeaseholdError(f"The acquire of {self.key} answered no lease token.")
        lease = SpaceLease(lh, claim, token)
        lease.replayed = answer.replayed
        lease.forget_key_on_end(lh._api.idempotency_store, operation_id)
        lh._scheduler.register(lease, space_grant_duration(claim, answer), sent_at)
        return Grant(lease, answer.replayed, True)

    def _acquirer(self, wait: bool, operation_id: Optional[str]) -> Callable[[], SpaceLease]:
        """One acquire, safe to repeat: the same key on every try (a new one only to replace an ended replay)."""
        key = [generate_idempotency_key()]

        def send(fresh: bool) -> Grant[SpaceLease]:
            if fresh:  # the replay named an ended lease: forget its key now, then acquire anew
                forget_operation(self._run._lh._api.idempotency_store, operation_id)
                key[0] = generate_idempotency_key()
            return self._grant(wait, operation_id, key[0])

        return lambda: acquire_unless_ended(send, SpaceLease.renew).lease

    def acquire(
        self, *, timeout: Optional[float] = None, operation_id: Optional[str] = None, stop: Optional[threading.Event] = None
    ) -> SpaceLease:
        """Takes the key, waiting in its first-come first-served queue while someone else holds it
        (the batch heartbeat keeps the place and reports the grant). Rides through an outage: the
        acquire is sent again (same key) until the server answers. ``timeout`` (seconds) gives up:
        the place is released and :class:`TimeoutError` raised; setting ``stop`` does the same with
        :class:`StoppedError`. A replayed ``operation_id`` whose lease already ended acquires afresh."""
        lh = self._run._lh
        until = None if timeout is None else time.monotonic() + timeout
        ride = Ride(f"acquire of {self.key}", policy=lh._api.retry_policy, closed=lambda: lh._closed, stop=stop, until=until)
        lease = ride_through(self._acquirer(True, operation_id), ride)
        return self._await_grant(lease, until, stop)

    def try_acquire(self, *, operation_id: Optional[str] = None) -> Optional[SpaceLease]:
        """Takes the key if it is free; None when someone else holds it (409 ``claim_held``)."""
        try:
            lease = self._acquirer(False, operation_id)()
        except ConflictError as error:
            if error.code == "claim_held":
                return None
            raise
        return self._await_grant(lease, None, None)

    def run(
        self, fn: Callable[[SpaceLease], T], *, timeout: Optional[float] = None, operation_id: Optional[str] = None,
        stop: Optional[threading.Event] = None,
    ) -> T:
        """Acquires (waiting its turn, riding through an outage), runs ``fn(lease)`` while renewed,
        releases afterwards (also when ``fn`` raises; a failed release after success is logged: the
        lease expires at the end of its term at worst). If the lease was lost before ``fn``
        returned, raises :class:`LeaseLostError`."""
        lease = self.acquire(timeout=timeout, operation_id=operation_id, stop=stop)
        try:
            result = fn(lease)
            lease.raise_if_lost()
        except BaseException:
            release_quietly(lease.release, lease.claim_id)
            raise
        release_quietly(lease.release, lease.claim_id)
        return result

    def _await_grant(self, lease: SpaceLease, until: Optional[float], stop: Optional[threading.Event]) -> SpaceLease:
        lh = self._run._lh
        if lease.status == "queued":
            while not lease.granted.is_set() and not lease.lost.is_set():
                if lh._closed or (stop is not None and stop.is_set()):
                    release_quietly(lease.release, lease.claim_id)
                    raise ClientClosedError() if lh._closed else StoppedError(f"Stopped waiting for {self.key}.")
                left = None if until is None else until - time.monotonic()
                if left is not None and left <= 0:
                    release_quietly(lease.release, lease.claim_id)
                    raise TimeoutError(f"Still queued for {self.key} when the timeout was up.")
                lease.granted.wait(0.05 if left is None else min(0.05, left))
        lease.raise_if_lost()
        if lease.fence is None:
            read = Ride(f"read of {self.key}'s fence", policy=lh._api.retry_policy, closed=lambda: lh._closed, stop=stop, lease=lease)
            try:
                row = ride_through(lambda: cast(Claim, lh._api.request("getSpaceClaim", path=lease._path()).data), read)
            except NotFoundError:
                lease.lose("lost", f"Key {self.key} is free again: the grant was lost.")
                raise LeaseLostError("lost", lease.claim_id) from None
            except LeaseLostError:
                raise
            except BaseException:
                release_quietly(lease.release, lease.claim_id)
                raise
            if row["claimId"] != lease.claim_id or row["fence"] is None:
                lease.lose("lost", f"Key {self.key} passed to another claim before its fence was read.")
                raise LeaseLostError("lost", lease.claim_id)
            lease.grant(row["fence"])
        return lease


class Run:
    """A run (scope) in a space: claims under it are taken away together when it is cancelled."""

    def __init__(self, lh: Leasehold, space_id: str, scope_id: str, holder: str, lease_seconds: Optional[float]) -> None:
        self._lh = lh
        self.space_id = space_id
        self.scope_id = scope_id
        self.holder = holder
        self.lease_seconds = lease_seconds

    def claim(self, key: str) -> ClaimHandle:
        """The handle of one key under this run."""
        return ClaimHandle(self, key)

    def cancel(self) -> ScopeCancellation:
        """Cancels the run: every claim under it is lost (reason ``cancelled`` for its holders)."""
        return cast(ScopeCancellation, self._lh._api.request("cancelScope", path={"spaceId": self.space_id, "scopeId": self.scope_id}).data)


class Space:
    """A space of keys (sync)."""

    def __init__(self, lh: Leasehold, space_id: str) -> None:
        self._lh = lh
        self.space_id = space_id

    def run(self, scope_id: str, *, holder: str, lease_seconds: Optional[float] = None) -> Run:
        """The run ``scope_id`` of this space, claiming as ``holder``."""
        return Run(self._lh, self.space_id, scope_id, holder, lease_seconds)

    def get_claim(self, key: str) -> Claim:
        """The current claim on ``key`` (404 :class:`NotFoundError` when free)."""
        return cast(Claim, self._lh._api.request("getSpaceClaim", path={"spaceId": self.space_id, "key": key}).data)
