"""Space claims: ``lh.space(id).run(scope_id, holder=...).claim(key)`` with ``acquire()`` (waits
its turn), ``try_acquire()`` (None when held elsewhere) and ``run(fn)``; a lease is a context
manager renewed by the client's one batch heartbeat while held. Sync and async handles share
:class:`SpaceLeaseBase`."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Optional, TypeVar, cast

from ._exceptions import ConflictError, LeaseholdError, LeaseLostError, NotFoundError
from ._generated.types import Claim, ReleasedClaim, ScopeCancellation
from ._lease_errors import lease_lost_reason_of
from ._lease_state import LeaseState

if TYPE_CHECKING:
    from ._client import AsyncLeasehold, Leasehold

T = TypeVar("T")


class SpaceLeaseBase(LeaseState):
    """A lease on one key of a space: ``fence``, ``lost``, ``at_risk``, ``raise_if_lost()``."""

    def __init__(self, claim: Claim, token: str, clock: Callable[[], float]) -> None:
        super().__init__(claim_id=claim["claimId"], kind="space", status=claim["status"], fence=claim["fence"], clock=clock)
        self.space_id = claim["spaceId"]
        self.key = claim["key"]
        self.scope_id = claim["scopeId"]
        self.holder = claim["holder"]
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

    def _send(self, wait: bool, operation_id: Optional[str]) -> SpaceLease:
        run, lh = self._run, self._run._lh
        body: dict[str, Any] = {"key": self.key, "scopeId": run.scope_id, "holder": run.holder, "holderSession": lh.session, "wait": wait}
        if run.lease_seconds is not None:
            body["leaseSeconds"] = run.lease_seconds
        sent_at = lh._clock()
        answer = lh._api.request("acquireSpaceClaim", path={"spaceId": run.space_id}, body=body, operation_id=operation_id)
        claim = cast(Claim, answer.data)
        token = claim.get("token")
        if not token:
            raise LeaseholdError(f"The acquire of {self.key} answered no lease token.")
        lease = SpaceLease(lh, claim, token)
        store = lh._api.idempotency_store
        if operation_id is not None and store is not None:
            # The acquire's key is the lease's: once the lease ends, the same id means a new lease.
            forget, op = store.delete, operation_id
            lease.on_lost(lambda _error: forget(op))
        lh._scheduler.register(lease, float(claim["leaseSeconds"]), sent_at)
        return lease

    def acquire(self, *, timeout: Optional[float] = None, operation_id: Optional[str] = None) -> SpaceLease:
        """Takes the key, waiting in its first-come first-served queue while someone else holds it
        (the batch heartbeat keeps the place and reports the grant). ``timeout`` (seconds) gives
        up waiting: the place is released and :class:`TimeoutError` raised."""
        return self._await_grant(self._send(True, operation_id), timeout)

    def try_acquire(self, *, operation_id: Optional[str] = None) -> Optional[SpaceLease]:
        """Takes the key if it is free; None when someone else holds it (409 ``claim_held``)."""
        try:
            lease = self._send(False, operation_id)
        except ConflictError as error:
            if error.code == "claim_held":
                return None
            raise
        return self._await_grant(lease, None)

    def run(self, fn: Callable[[SpaceLease], T], *, timeout: Optional[float] = None) -> T:
        """Acquires (waiting its turn), runs ``fn(lease)`` while renewed, releases afterwards (also
        when ``fn`` raises). If the lease was lost before ``fn`` returned, raises :class:`LeaseLostError`."""
        with self.acquire(timeout=timeout) as lease:
            result = fn(lease)
            lease.raise_if_lost()
            return result

    def _await_grant(self, lease: SpaceLease, timeout: Optional[float]) -> SpaceLease:
        lh = self._run._lh
        if lease.status == "queued":
            give_up_at = None if timeout is None else time.monotonic() + timeout
            while not lease.granted.is_set() and not lease.lost.is_set():
                if lh._closed:
                    lease.release()
                    raise LeaseholdError("The client closed while waiting for the key.")
                left = None if give_up_at is None else give_up_at - time.monotonic()
                if left is not None and left <= 0:
                    lease.release()
                    raise TimeoutError(f"Still queued for {self.key} after {timeout} s.")
                lease.granted.wait(0.05 if left is None else min(0.05, left))
        lease.raise_if_lost()
        if lease.fence is None:
            try:
                row = cast(Claim, lh._api.request("getSpaceClaim", path=lease._path()).data)
            except NotFoundError:
                lease.lose("lost", f"Key {self.key} is free again: the grant was lost.")
                raise LeaseLostError("lost", lease.claim_id) from None
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
