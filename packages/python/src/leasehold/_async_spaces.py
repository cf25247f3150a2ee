"""Space claims for :class:`AsyncLeasehold`: the same handles as ``_spaces`` with ``await`` and
``async with``; renewed by the client's one asyncio renewal task. A loop is also ended by
cancelling its task (the place in the queue is released)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Optional, TypeVar, cast

from ._exceptions import ClientClosedError, ConflictError, LeaseholdError, LeaseLostError, NotFoundError, StoppedError
from ._generated.types import Claim, ReleasedClaim, ScopeCancellation
from ._idempotency import generate_idempotency_key
from ._lease_errors import lease_lost_reason_of
from ._replayed_grant import Grant, async_acquire_unless_ended, forget_operation
from ._ride_through import Flag, Ride, async_ride_through, log
from ._spaces import SpaceLeaseBase, acquire_body, space_grant_duration

if TYPE_CHECKING:
    from ._client import AsyncLeasehold

T = TypeVar("T")


async def async_release_quietly(release: Callable[[], Awaitable[object]], claim_id: str) -> None:
    """Releases; a failure is logged, never raised over the caller's outcome (the lease expires at worst)."""
    try:
        await release()
    except LeaseholdError as error:
        log.warning("Releasing lease %s failed (%s); no heartbeat names it any more, so it expires at the end of its term.",
                    claim_id, error)


class AsyncSpaceLease(SpaceLeaseBase):
    """A space lease of the async client; ``async with lease:`` releases it on exit."""

    def __init__(self, lh: AsyncLeasehold, claim: Claim, token: str) -> None:
        super().__init__(claim, token, lh._clock)
        self._lh = lh

    async def wait_lost(self) -> None:
        """Returns once the lease is lost (polls the thread-safe ``lost`` event without blocking the loop)."""
        while not self.lost.is_set():
            await asyncio.sleep(0.05)

    async def renew(self) -> None:
        """Renews now (the batch heartbeat does it anyway); a refusal that means the lease is gone loses it."""
        self.raise_if_lost()
        sent_at = self._lh._clock()
        try:
            answer = await self._lh._api.request(
                "renewSpaceClaim", path=self._path(), body={"token": self._token, "leaseSeconds": self.lease_seconds}
            )
        except LeaseholdError as error:
            if self._lose_if(error):
                raise LeaseLostError(self.lost_reason or "lost", self.claim_id, str(error)) from error
            raise
        self._lh._scheduler.register(self, float(cast(Claim, answer.data)["leaseSeconds"]), sent_at)

    async def release(self) -> Optional[ReleasedClaim]:
        """Gives the key back; None when already gone."""
        if self.lost.is_set():
            return None
        self._lh._scheduler.unregister(self)
        try:
            answer = await self._lh._api.request("releaseSpaceClaim", path=self._path(), body={"token": self._token})
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

    async def __aenter__(self) -> AsyncSpaceLease:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.release()


class AsyncClaimHandle:
    """One key of a space claimed for one run (async)."""

    def __init__(self, run: AsyncRun, key: str) -> None:
        if not isinstance(key, str) or key in ("", ".", ".."):
            raise LeaseholdError(f"A claim key must be a non-empty string other than . and .., got {key!r}.")
        self._run = run
        self.key = key

    async def _grant(self, wait: bool, operation_id: Optional[str], key: str) -> Grant[AsyncSpaceLease]:
        run, lh = self._run, self._run._lh
        sent_at = lh._clock()
        answer = await lh._api.request(
            "acquireSpaceClaim", path={"spaceId": run.space_id}, body=acquire_body(run, lh.session, self.key, wait),
            operation_id=operation_id, idempotency_key=key,
        )
        claim = cast(Claim, answer.data)
        tracked = lh._scheduler.core.tracked(claim["claimId"])
        if isinstance(tracked, AsyncSpaceLease):
            return Grant(tracked, answer.replayed, False)
        token = claim.get("token")
        if not token:
            raise LeaseholdError(f"The acquire of {self.key} answered no lease token.")
        lease = AsyncSpaceLease(lh, claim, token)
        lease.replayed = answer.replayed
        lease.forget_key_on_end(lh._api.idempotency_store, operation_id)
        lh._scheduler.register(lease, space_grant_duration(claim, answer), sent_at)
        return Grant(lease, answer.replayed, True)

    def _acquirer(self, wait: bool, operation_id: Optional[str]) -> Callable[[], Awaitable[AsyncSpaceLease]]:
        key = [generate_idempotency_key()]

        async def send(fresh: bool) -> Grant[AsyncSpaceLease]:
            if fresh:  # the replay named an ended lease: forget its key now, then acquire anew
                forget_operation(self._run._lh._api.idempotency_store, operation_id)
                key[0] = generate_idempotency_key()
            return await self._grant(wait, operation_id, key[0])

        async def acquire() -> AsyncSpaceLease:
            return (await async_acquire_unless_ended(send, AsyncSpaceLease.renew)).lease

        return acquire

    async def acquire(
        self, *, timeout: Optional[float] = None, operation_id: Optional[str] = None, stop: Optional[Flag] = None
    ) -> AsyncSpaceLease:
        """Takes the key, waiting its turn and riding through an outage; ``timeout`` gives up
        (:class:`TimeoutError`), ``stop`` too (:class:`StoppedError`); the place is released."""
        lh = self._run._lh
        until = None if timeout is None else time.monotonic() + timeout
        ride = Ride(f"acquire of {self.key}", policy=lh._api.retry_policy, closed=lambda: lh._closed, stop=stop, until=until)
        lease = await async_ride_through(self._acquirer(True, operation_id), ride)
        return await self._await_grant(lease, until, stop)

    async def try_acquire(self, *, operation_id: Optional[str] = None) -> Optional[AsyncSpaceLease]:
        """Takes the key if it is free; None when someone else holds it."""
        try:
            lease = await self._acquirer(False, operation_id)()
        except ConflictError as error:
            if error.code == "claim_held":
                return None
            raise
        return await self._await_grant(lease, None, None)

    async def run(
        self, fn: Callable[[AsyncSpaceLease], Awaitable[T]], *, timeout: Optional[float] = None,
        operation_id: Optional[str] = None, stop: Optional[Flag] = None,
    ) -> T:
        """Acquires, awaits ``fn(lease)`` while renewed, releases afterwards (a failed release after success is logged)."""
        lease = await self.acquire(timeout=timeout, operation_id=operation_id, stop=stop)
        try:
            result = await fn(lease)
            lease.raise_if_lost()
        except BaseException:
            await async_release_quietly(lease.release, lease.claim_id)
            raise
        await async_release_quietly(lease.release, lease.claim_id)
        return result

    async def _await_grant(self, lease: AsyncSpaceLease, until: Optional[float], stop: Optional[Flag]) -> AsyncSpaceLease:
        lh = self._run._lh
        try:
            while lease.status == "queued" and not lease.granted.is_set() and not lease.lost.is_set():
                if lh._closed:
                    raise ClientClosedError()
                if stop is not None and stop.is_set():
                    raise StoppedError(f"Stopped waiting for {self.key}.")
                if until is not None and time.monotonic() >= until:
                    raise TimeoutError(f"Still queued for {self.key} when the timeout was up.")
                await asyncio.sleep(0.05)
        except BaseException:  # also a cancelled task: leave the queue
            await async_release_quietly(lease.release, lease.claim_id)
            raise
        lease.raise_if_lost()
        if lease.fence is None:
            read = Ride(f"read of {self.key}'s fence", policy=lh._api.retry_policy, closed=lambda: lh._closed, stop=stop, lease=lease)

            async def fence_row() -> Claim:
                return cast(Claim, (await lh._api.request("getSpaceClaim", path=lease._path())).data)

            try:
                row = await async_ride_through(fence_row, read)
            except NotFoundError:
                lease.lose("lost", f"Key {self.key} is free again: the grant was lost.")
                raise LeaseLostError("lost", lease.claim_id) from None
            except LeaseLostError:
                raise
            except BaseException:
                await async_release_quietly(lease.release, lease.claim_id)
                raise
            if row["claimId"] != lease.claim_id or row["fence"] is None:
                lease.lose("lost", f"Key {self.key} passed to another claim before its fence was read.")
                raise LeaseLostError("lost", lease.claim_id)
            lease.grant(row["fence"])
        return lease


class AsyncRun:
    """A run (scope) in a space (async)."""

    def __init__(self, lh: AsyncLeasehold, space_id: str, scope_id: str, holder: str, lease_seconds: Optional[float]) -> None:
        self._lh = lh
        self.space_id = space_id
        self.scope_id = scope_id
        self.holder = holder
        self.lease_seconds = lease_seconds

    def claim(self, key: str) -> AsyncClaimHandle:
        """The handle of one key under this run."""
        return AsyncClaimHandle(self, key)

    async def cancel(self) -> ScopeCancellation:
        """Cancels the run: every claim under it is lost (reason ``cancelled`` for its holders)."""
        path = {"spaceId": self.space_id, "scopeId": self.scope_id}
        return cast(ScopeCancellation, (await self._lh._api.request("cancelScope", path=path)).data)


class AsyncSpace:
    """A space of keys (async)."""

    def __init__(self, lh: AsyncLeasehold, space_id: str) -> None:
        self._lh = lh
        self.space_id = space_id

    def run(self, scope_id: str, *, holder: str, lease_seconds: Optional[float] = None) -> AsyncRun:
        """The run ``scope_id`` of this space, claiming as ``holder``."""
        return AsyncRun(self._lh, self.space_id, scope_id, holder, lease_seconds)

    async def get_claim(self, key: str) -> Claim:
        """The current claim on ``key`` (404 :class:`NotFoundError` when free)."""
        return cast(Claim, (await self._lh._api.request("getSpaceClaim", path={"spaceId": self.space_id, "key": key})).data)
